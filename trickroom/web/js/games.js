// The games and rating systems by name, in the player's language (lobby, table, profile).

import { t } from "./i18n.js";

/** "Spades" or "Hearts" (Greek "Μπαστούνια", "Κούπες"). */
export const gameName = (game) => t(game === "hearts" ? "game.hearts" : "game.spades");

/** A room's rating system as players know it (the code itself for one not named here). */
export const systemName = (system) => {
  const key = `system.${system}`;
  const name = t(key);
  return name === key ? system : name;
};
