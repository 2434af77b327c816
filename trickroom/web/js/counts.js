// Counts and places in words: "1 trick", "2 tricks", "2nd". The form is chosen by the
// language's plural rules (Intl.PluralRules), not by "n === 1": other languages choose
// among more forms by rules of their own (Greek comes next, issue 37), and a new language
// adds its words here, each form under the category Intl names ("one", "few", "other"...).

const LOCALE = "en";
const cardinal = new Intl.PluralRules(LOCALE);
const ordinal = new Intl.PluralRules(LOCALE, { type: "ordinal" });

const WORDS = {
  bag: { one: "bag", other: "bags" },
  card: { one: "card", other: "cards" },
  "casual game": { one: "casual game", other: "casual games" },
  game: { one: "game", other: "games" },
  player: { one: "player", other: "players" },
  pt: { one: "pt", other: "pts" },
  seat: { one: "seat", other: "seats" },
  table: { one: "table", other: "tables" },
  trick: { one: "trick", other: "tricks" },
};
const ORDINAL_SUFFIX = { one: "st", two: "nd", few: "rd", other: "th" };

/** The word for `n` of `word` without the number: plural("trick", 2) is "tricks". */
export function plural(word, n) {
  const forms = WORDS[word];
  if (!forms) throw new Error(`no plural forms for ${JSON.stringify(word)}`);
  return forms[cardinal.select(n)] ?? forms.other;
}

/** `n` and its word: count(1, "trick") is "1 trick", count(0, "bag") "0 bags". */
export function count(n, word) {
  return `${n} ${plural(word, n)}`;
}

/** A place in a finishing order: 1 → "1st", 2 → "2nd", 3 → "3rd", 4 → "4th". */
export function place(n) {
  return `${n}${ORDINAL_SUFFIX[ordinal.select(n)] ?? ORDINAL_SUFFIX.other}`;
}
