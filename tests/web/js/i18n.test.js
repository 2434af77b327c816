// The message catalogs' reader (trickroom/web/js/i18n.js): ICU placeholders, plurals by
// the language's rules, numbers and dates in its format, the pseudo-locale's longer
// accented English, and the choice of a language from the browser's list.

import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";

import {
  bestOf, language, num, parse, placeholders, pseudo, t, use,
} from "../../../trickroom/web/js/i18n.js";

const english = JSON.parse(readFileSync(new URL("../../../trickroom/web/locales/en.json", import.meta.url), "utf8"));

test("a message fills its placeholders, and its plural form by the number", async () => {
  await use("en");
  assert.equal(t("bid.partner", { n: 4 }), "Your partner bid 4.");
  assert.equal(t("count.trick", { n: 1 }), "1 trick");
  assert.equal(t("count.trick", { n: 5 }), "5 tricks");
  assert.equal(t("seat.label", { seat: "North", name: "ann", bot: "no", turn: "yes" }), "North: ann, to act");
});

test("Greek: its words, its plural forms, its numbers (a decimal comma, a dot between thousands)", async () => {
  await use("el");
  try {
    assert.equal(language(), "el");
    assert.equal(t("count.trick", { n: 1 }), "1 λεβέ");
    assert.equal(t("count.trick", { n: 2 }), "2 λεβέδες");
    assert.equal(t("place", { n: 2 }), "2η");
    assert.equal(num(12345.5), "12.345,5");
    assert.equal(t("sum.points"), "Πόντοι");
  } finally {
    await use("en");
  }
});

test("the pseudo-locale is English accented and about 40% longer, its placeholders kept", async () => {
  await use("en-XA");
  try {
    assert.equal(t("bid.partner", { n: 4 }), pseudo("Your partner bid ") + "4" + pseudo("."));
    assert.equal(t("seat.sit_here"), "Šîîţ ĥééŕéé");
    let plain = 0, long = 0;
    for (const key of Object.keys(english)) {
      const en = english[key];
      if (placeholders(en).length) continue;
      plain += en.length;
      long += t(key).length;
    }
    assert.ok(long >= plain * 1.3, `pseudo ${long} against English ${plain}`);
  } finally {
    await use("en");
  }
});

test("a language is chosen from the browser's list: the first with a catalog", () => {
  assert.equal(bestOf(["el-GR", "en-US"]), "el");
  assert.equal(bestOf(["de-DE", "en-GB"]), "en");
  assert.equal(bestOf(["de-DE", "fr"]), null);
  assert.equal(bestOf(["en-XA"]), "en-XA");
});

test("every English message parses", () => {
  for (const [key, text] of Object.entries(english)) assert.doesNotThrow(() => parse(text), key);
});
