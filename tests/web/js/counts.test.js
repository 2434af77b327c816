// Counts in words (trickroom/web/js/counts.js): one form for one, another for the rest,
// by the language's plural rules; places as a finishing order says them.

import { test } from "node:test";
import assert from "node:assert/strict";

import { count, place, plural } from "../../../trickroom/web/js/counts.js";

test("one trick, one bag, one table: the singular; none and many: the plural", () => {
  assert.equal(count(1, "trick"), "1 trick");
  assert.equal(count(0, "trick"), "0 tricks");
  assert.equal(count(2, "trick"), "2 tricks");
  assert.equal(count(1, "bag"), "1 bag");
  assert.equal(count(11, "bag"), "11 bags");
  assert.equal(count(1, "casual game"), "1 casual game");
  assert.equal(plural("seat", 3), "seats");
});

test("a word without forms is an error, not an English guess", () => {
  assert.throws(() => count(2, "goose"));
});

test("places: 1st, 2nd, 3rd, 4th, 11th, 22nd", () => {
  assert.deepEqual([1, 2, 3, 4, 11, 12, 13, 21, 22].map(place),
    ["1st", "2nd", "3rd", "4th", "11th", "12th", "13th", "21st", "22nd"]);
});
