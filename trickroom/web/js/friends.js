// Friends (#/friends): the players you follow, where each is now (pushed as it changes),
// and from here: follow, unfollow, join or watch them, challenge them, hide yourself.

import { h, fill, sentence } from "./dom.js";
import { challengeForm } from "./challenges.js";

const GAME = { spades: "Spades", hearts: "Hearts" };

function where(p) {
  if (!p.online) return "offline";
  if (!p.at) return "online";
  const game = GAME[p.at.game] || p.at.game;
  return p.at.private ? `playing ${game} at a private table` : `playing ${game} in ${p.at.room}`;
}

export function mount(main, ctx) {
  if (ctx.me?.guest) {
    fill(main, h("section", { class: "panel" }, h("h1", {}, "Friends"),
      h("p", {}, "Guests follow no one. ", h("a", { href: "#/signin" }, "Register"),
        " to follow players, see when they are online and challenge them.")));
    return {};
  }
  let players = [];
  const list = h("ul", { class: "friends-list", "aria-label": "Players you follow" });
  const error = h("p", { class: "error", role: "alert" });
  const followForm = h("form", { class: "follow-form", "aria-label": "Follow" },
    h("label", { class: "field" }, h("span", {}, "Follow a player"),
      h("input", { name: "name", required: true, maxlength: 24, autocomplete: "off" })),
    h("button", { type: "submit" }, "Follow"));
  const hide = h("input", { type: "checkbox", name: "hide_presence" });

  async function load() {
    try {
      players = (await ctx.conn.request({ type: "friends" })).players;
      render();
    } catch (err) { error.textContent = sentence(err.message); }
  }

  function row(p) {
    const actions = [];
    if (p.at && !p.at.private && p.at.table) {
      actions.push(h("a", { class: "button", href: `#/table/${encodeURIComponent(p.at.table)}` }, "Watch"));
    }
    if (p.online) {
      actions.push(h("button", { type: "button", onclick: (e) => {
        const li = e.currentTarget.closest("li");
        const form = challengeForm(ctx, p.name, () => form.remove());
        li.append(form);
        form.querySelector("select")?.focus();
      } }, "Challenge"));
    }
    actions.push(h("button", { type: "button", class: "link", onclick: async () => {
      await ctx.conn.request({ type: "follow", name: p.name, on: false });
      load();
    } }, "Unfollow"));
    return h("li", { class: `friend ${p.online ? "online" : "offline"}`, dataset: { name: p.name } },
      h("span", { class: "friend-name" }, p.name),
      p.mutual ? h("span", { class: "badge" }, "friend") : null,
      h("span", { class: "friend-where" }, where(p)),
      h("span", { class: "friend-actions" }, actions));
  }

  function render() {
    fill(list, players.length ? players.map(row)
      : h("li", { class: "hint" }, "You follow no one yet."));
  }

  followForm.addEventListener("submit", async (e) => {
    e.preventDefault();
    error.textContent = "";
    const name = new FormData(followForm).get("name");
    try {
      await ctx.conn.request({ type: "follow", name });
      followForm.reset();
      load();
    } catch (err) { error.textContent = sentence(err.message); }
  });
  hide.addEventListener("change", async () => {
    try { await ctx.conn.request({ type: "settings", hide_presence: hide.checked }); }
    catch (err) { error.textContent = sentence(err.message); }
  });

  fill(main, h("section", { class: "panel friends-page", "aria-labelledby": "friends-h" },
    h("h1", { id: "friends-h" }, "Friends"),
    h("p", { class: "hint" }, "Follow players to see when they are online and where they play; "
      + "two who follow each other are friends."),
    followForm, error, list,
    h("label", { class: "check" }, hide, "Hide my presence (those who follow me see me offline)")));
  load();
  return {
    onMessage(msg) {
      if (msg.type !== "presence") return;
      const p = players.find((x) => x.name.toLowerCase() === msg.name.toLowerCase());
      if (!p) return;
      Object.assign(p, { online: msg.online, at: msg.at });
      render();
    },
    onReconnect: load,
  };
}
