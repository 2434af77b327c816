// Counts and places in words: "1 trick", "2 tricks", "2nd" (Greek "1 λεβέ", "2 λεβέδες",
// "2η"). The forms are the catalog's (i18n.js), chosen by the language's plural rules
// (Intl.PluralRules), not by "n === 1": each word is a message "count.<word>" with a
// plural argument, and a language adds its forms under the categories Intl names
// ("one", "few", "other"...).

import { t, has } from "./i18n.js";

/** `n` and its word: count(1, "trick") is "1 trick", count(0, "bag") "0 bags". A word
 *  with no message is an error, not an English guess. */
export function count(n, word) {
  const key = `count.${word.replaceAll(" ", "_")}`;
  if (!has(key)) throw new Error(`no plural forms for ${JSON.stringify(word)}`);
  return t(key, { n });
}

/** A place in a finishing order: 1 → "1st", 2 → "2nd", 3 → "3rd", 4 → "4th". */
export function place(n) {
  return t("place", { n });
}
