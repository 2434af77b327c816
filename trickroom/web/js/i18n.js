// The player's language: every word this client shows comes from a catalog here, by key.
//
// Catalogs are JSON files, one per language (web/locales/<lang>.json: a flat object of
// key → message), and only the active language's is downloaded. Messages are written in
// the ICU MessageFormat subset that a card table needs, read by the small parser below:
//
//   "{name} bid {n}"                                     a placeholder
//   "{n, plural, one {# trick} other {# tricks}}"        plural forms by Intl.PluralRules
//   "{n, selectordinal, one {#st} two {#nd} few {#rd} other {#th}}"   an ordinal
//   "{suit, select, spades {…} other {…}}"               a choice by a word
//
// `#` in a plural is the number in the language's own format (Intl.NumberFormat: 1.234,5
// in Greek), and so is any placeholder given a number. Braces cannot appear as text.
//
// Adding a language is adding its catalog file and its name in LANGUAGES (tests/web/
// test_i18n.py fails while a key or a placeholder of English is missing from it). The
// pseudo-locale "en-XA" is English made accented and about 40% longer, built here from the
// English catalog: the layout tests run in it, so a label that only fits in English shows.
//
// The language is chosen, first that applies: one asked for in the page's address
// (?lang=el), the one this browser chose before (local storage), the account's (the
// server's welcome), the browser's own (navigator.languages), English.

export const DEFAULT = "en";
/** Each language by its own name, as the switch offers it. */
export const LANGUAGES = { en: "English", el: "Ελληνικά" };
export const PSEUDO = "en-XA";
const STORE_KEY = "trickroom.language";

let active = DEFAULT;
let messages = {};
const parsed = new Map();

/** The language on screen ("en", "el", "en-XA"). */
export const language = () => active;
/** The language whose rules (plurals, numbers, dates) the pseudo-locale borrows. */
const rulesLocale = () => (active === PSEUDO ? DEFAULT : active);

function stored() {
  try { return globalThis.localStorage?.getItem(STORE_KEY) || null; } catch { return null; }
}

const known = (code) => code === PSEUDO || Object.hasOwn(LANGUAGES, code);

/** The best of `wanted` (tags such as "el-GR", "en-US") that a catalog exists for. */
export function bestOf(wanted) {
  for (const tag of wanted || []) {
    if (!tag) continue;
    if (known(tag)) return tag;
    const base = String(tag).split("-")[0].toLowerCase();
    if (Object.hasOwn(LANGUAGES, base)) return base;
  }
  return null;
}

/** The language to start in (see the top of this file). */
export function chosen() {
  const asked = globalThis.location ? new URLSearchParams(globalThis.location.search).get("lang") : null;
  if (asked && known(asked)) {
    try { globalThis.localStorage?.setItem(STORE_KEY, asked); } catch { /* private mode */ }
    return asked;
  }
  const mine = stored();
  if (mine && known(mine)) return mine;
  return bestOf(globalThis.navigator?.languages) || DEFAULT;
}

async function fetchCatalog(code) {
  const url = new URL(`../locales/${code}.json`, import.meta.url);
  if (url.protocol === "file:") { // Node (the unit tests): read it from the disk
    const { readFile } = await import("node:fs/promises");
    return JSON.parse(await readFile(url, "utf8"));
  }
  const response = await fetch(url);
  if (!response.ok) throw new Error(`${url}: HTTP ${response.status}`);
  return response.json();
}

/** Load `code`'s catalog and make it the active one (the page's `lang` follows). */
export async function use(code) {
  const base = code === PSEUDO ? DEFAULT : code;
  let catalog;
  try { catalog = await fetchCatalog(base); } catch (err) {
    if (base === DEFAULT) throw err;
    console.info(`trickroom: no catalog for ${code} (${err.message}); English instead`);
    return use(DEFAULT);
  }
  active = code;
  messages = catalog;
  parsed.clear();
  if (globalThis.document) globalThis.document.documentElement.lang = code;
  return code;
}

/** Remember `code` as this browser's choice (it applies from the next page load). */
export function remember(code) {
  try { globalThis.localStorage?.setItem(STORE_KEY, code); } catch { /* private mode */ }
}

/** Whether this browser has chosen a language itself (then an account's does not override it). */
export const rememberedChoice = () => stored();

// -- the message format ----------------------------------------------------------------

/** Parse an ICU message into parts: strings, {arg}, {arg, kind, options}. */
export function parse(text) {
  let i = 0;
  function nodes(inPlural) {
    const out = [];
    let buf = "";
    while (i < text.length) {
      const c = text[i];
      if (c === "{") {
        if (buf) { out.push(buf); buf = ""; }
        i++;
        out.push(argument());
      } else if (c === "}") {
        break;
      } else if (c === "#" && inPlural) {
        if (buf) { out.push(buf); buf = ""; }
        out.push({ hash: true });
        i++;
      } else { buf += c; i++; }
    }
    if (buf) out.push(buf);
    return out;
  }
  function word() {
    const m = /^\s*([^\s,{}]+)\s*/.exec(text.slice(i));
    if (!m) throw new Error(`bad message at ${i}: ${text}`);
    i += m[0].length;
    return m[1];
  }
  function argument() {
    const name = word();
    if (text[i] === "}") { i++; return { arg: name }; }
    if (text[i] !== ",") throw new Error(`bad message at ${i}: ${text}`);
    i++;
    const kind = word();
    if (text[i] === "}") { i++; return { arg: name, kind }; }
    if (text[i] !== ",") throw new Error(`bad message at ${i}: ${text}`);
    i++;
    const options = {};
    for (;;) {
      while (/\s/.test(text[i])) i++;
      if (text[i] === "}") { i++; break; }
      const key = word();
      if (text[i] !== "{") throw new Error(`bad message at ${i}: ${text}`);
      i++;
      options[key] = nodes(kind === "plural" || kind === "selectordinal");
      if (text[i] !== "}") throw new Error(`unclosed option in ${text}`);
      i++;
    }
    return { arg: name, kind, options };
  }
  const out = nodes(false);
  if (i < text.length) throw new Error(`unbalanced braces in ${text}`);
  return out;
}

/** The names of the placeholders a message uses (for the catalog tests). */
export function placeholders(text) {
  const names = new Set();
  const walk = (parts) => {
    for (const p of parts) {
      if (typeof p === "string" || p.hash) continue;
      names.add(p.arg);
      for (const option of Object.values(p.options || {})) walk(option);
    }
  };
  walk(parse(text));
  return [...names].sort();
}

// Pseudo-localisation: letters accented, vowels doubled (English text grows by about 40%),
// so that a test sees what a longer language (German, Greek) does to the layout.
const ACCENTED = Object.fromEntries([..."abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"]
  .map((c, k) => [c, [..."åƀçđéƒĝĥîĵķļɱñöþǫŕšţûṽŵẋýžÅƁÇĐÉƑĜĤÎĴĶĻṀÑÖÞǪŔŠŢÛṼŴẊÝŽ"][k]]));
export function pseudo(text) {
  let out = "";
  for (const c of text) {
    const a = ACCENTED[c] ?? c;
    out += a;
    if ("aeiouAEIOU".includes(c)) out += a;
  }
  return out;
}

function pseudoParts(parts) {
  return parts.map((p) => (typeof p === "string" ? pseudo(p)
    : p.options ? { ...p, options: Object.fromEntries(Object.entries(p.options).map(([k, v]) => [k, pseudoParts(v)])) }
      : p));
}

const numberFormats = new Map();
/** A number as the language writes it: num(12345.5) is "12,345.5" in English, "12.345,5" in
 *  Greek (four digits are not grouped: a rating of 1500 reads "1500"). */
export function num(n, options = {}) {
  const key = `${rulesLocale()}|${JSON.stringify(options)}`;
  if (!numberFormats.has(key)) {
    numberFormats.set(key, new Intl.NumberFormat(rulesLocale(), { useGrouping: "min2", ...options }));
  }
  return numberFormats.get(key).format(n);
}

/** A signed number with a true minus sign: "+12", "−3" (Greek: "+12", "−3"). */
export const signed = (n, options = {}) => num(n, { signDisplay: "exceptZero", ...options }).replace("-", "−");

/** Names joined as the language lists them: "Ann and Bo", "Άννα και Μπο". */
export function list(items, type = "conjunction") {
  return new Intl.ListFormat(rulesLocale(), { style: "long", type }).format(items.map(String));
}

/** A date (and time, with `options`) as the language writes it. */
export function date(value, options = { dateStyle: "medium" }) {
  const d = value instanceof Date ? value : new Date(value);
  return new Intl.DateTimeFormat(rulesLocale(), options).format(d);
}

function render(parts, params, hash) {
  let out = "";
  for (const p of parts) {
    if (typeof p === "string") { out += p; continue; }
    if (p.hash) { out += hash == null ? "#" : num(hash); continue; }
    const value = params?.[p.arg];
    if (!p.kind || p.kind === "number") {
      out += typeof value === "number" ? num(value) : String(value ?? `{${p.arg}}`);
    } else if (p.kind === "plural" || p.kind === "selectordinal") {
      const n = Number(value);
      const exact = p.options[`=${n}`];
      const rules = new Intl.PluralRules(rulesLocale(), p.kind === "selectordinal" ? { type: "ordinal" } : {});
      const option = exact || p.options[rules.select(n)] || p.options.other;
      out += render(option, params, n);
    } else if (p.kind === "select") {
      out += render(p.options[String(value)] || p.options.other || [], params, hash);
    }
  }
  return out;
}

/** Whether the active catalog has `key`. */
export const has = (key) => Object.hasOwn(messages, key);

/**
 * The message `key` in the active language, its placeholders filled from `params`:
 * t("bid.partner", {n: 4}). A key missing from the catalog shows as itself (and a test
 * fails on it, tests/web/test_i18n.py), never as a guess in English.
 */
export function t(key, params) {
  let parts = parsed.get(key);
  if (!parts) {
    const text = messages[key];
    if (text == null) {
      console.warn(`trickroom: no message ${key} in ${active}`);
      return key;
    }
    parts = parse(text);
    if (active === PSEUDO) parts = pseudoParts(parts);
    parsed.set(key, parts);
  }
  return render(parts, params, null);
}

// The catalog is loaded before any module that shows words runs (they import this one).
await use(chosen());
