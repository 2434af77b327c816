// Counts in words (trickroom/web/js/counts.js, through the catalogs of i18n.js): one form
// for one, another for the rest, by the language's plural rules; places as a finishing
// order says them. Node has no page: i18n.js reads the catalog from the disk, in English
// (Node's navigator.languages is ["en-US"]).

import { test } from "node:test";
import assert from "node:assert/strict";

import { count, place } from "../../../trickroom/web/js/counts.js";
import { language } from "../../../trickroom/web/js/i18n.js";

test("the unit tests run in English", () => {
  assert.equal(language(), "en");
});

test("one trick, one bag, one table: the singular; none and many: the plural", () => {
  assert.equal(count(1, "trick"), "1 trick");
  assert.equal(count(0, "trick"), "0 tricks");
  assert.equal(count(2, "trick"), "2 tricks");
  assert.equal(count(1, "bag"), "1 bag");
  assert.equal(count(11, "bag"), "11 bags");
  assert.equal(count(1, "casual game"), "1 casual game");
  assert.equal(count(3, "seat"), "3 seats");
});

test("a word without forms is an error, not an English guess", () => {
  assert.throws(() => count(2, "goose"));
});

test("places: 1st, 2nd, 3rd, 4th, 11th, 22nd", () => {
  assert.deepEqual([1, 2, 3, 4, 11, 12, 13, 21, 22].map(place),
    ["1st", "2nd", "3rd", "4th", "11th", "12th", "13th", "21st", "22nd"]);
});
