// Friends (#/friends): the players you follow, where each is now (pushed as it changes),
// and from here: follow, unfollow, join or watch them, challenge them, hide yourself.

import { t } from "./i18n.js";
import { gameName } from "./games.js";
import { h, fill, sentence } from "./dom.js";
import { challengeForm } from "./challenges.js";

function where(p) {
  if (!p.online) return t("friends.offline");
  if (!p.at) return t("friends.online");
  const game = gameName(p.at.game);
  return p.at.private ? t("friends.playing_private", { game }) : t("friends.playing_in", { game, room: p.at.room });
}

export function mount(main, ctx) {
  if (ctx.me?.guest) {
    fill(main, h("section", { class: "panel" }, h("h1", {}, t("nav.friends")),
      h("p", {}, t("friends.guests"), " ", h("a", { href: "#/signin" }, t("signin.register")), " ", t("friends.guests_register"))));
    return {};
  }
  let players = [];
  const list = h("ul", { class: "friends-list", "aria-label": t("friends.following") });
  const error = h("p", { class: "error", role: "alert" });
  const followForm = h("form", { class: "follow-form", "aria-label": t("friends.follow") },
    h("label", { class: "field" }, h("span", {}, t("friends.follow_player")),
      h("input", { name: "name", required: true, maxlength: 24, autocomplete: "off" })),
    h("button", { type: "submit" }, t("friends.follow")));
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
      actions.push(h("a", { class: "button", href: `#/table/${encodeURIComponent(p.at.table)}` }, t("lobby.watch")));
    }
    if (p.online) {
      actions.push(h("button", { type: "button", onclick: (e) => {
        const li = e.currentTarget.closest("li");
        const form = challengeForm(ctx, p.name, () => form.remove());
        li.append(form);
        form.querySelector("select")?.focus();
      } }, t("friends.challenge")));
    }
    actions.push(h("button", { type: "button", class: "link", onclick: async () => {
      await ctx.conn.request({ type: "follow", name: p.name, on: false });
      load();
    } }, t("friends.unfollow")));
    return h("li", { class: `friend ${p.online ? "online" : "offline"}`, dataset: { name: p.name } },
      h("span", { class: "friend-name" }, p.name),
      p.mutual ? h("span", { class: "badge" }, t("friends.friend")) : null,
      h("span", { class: "friend-where" }, where(p)),
      h("span", { class: "friend-actions" }, actions));
  }

  function render() {
    fill(list, players.length ? players.map(row)
      : h("li", { class: "hint" }, t("friends.none")));
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
    h("h1", { id: "friends-h" }, t("nav.friends")),
    h("p", { class: "hint" }, t("friends.hint")),
    followForm, error, list,
    h("label", { class: "check" }, hide, t("friends.hide"))));
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
