// A chat panel for a table or a room. Names and messages are text nodes (dom.js),
// never HTML. A name opens a small menu: Ignore (their messages vanish for you,
// and the server stops sending them) or their profile.

import { t } from "./i18n.js";
import { h, fill } from "./dom.js";

export function chatPanel(ctx, { key, send, title = t("chat.title") }) {
  const list = h("ol", { class: "chat-list", "aria-live": "polite", "aria-label": t("chat.messages", { title }) });
  const ignoredBox = h("p", { class: "ignored hint" });
  const input = h("input", { name: "text", maxlength: 300, autocomplete: "off",
    placeholder: t("chat.placeholder"), "aria-label": t("chat.message", { title }) });
  const form = h("form", { class: "chat-form", onsubmit: async (e) => {
    e.preventDefault();
    const text = input.value.trim();
    if (!text) return;
    input.value = "";
    try { await send(text); } catch (err) { list.append(h("li", { class: "chat-error" }, err.message)); }
  } }, input, h("button", { type: "submit" }, t("chat.send")));

  function nameMenu(name, li) {
    const open = li.querySelector(".name-menu");
    if (open) { open.remove(); return; }
    const mine = name === ctx.me?.name;
    li.append(h("span", { class: "name-menu" },
      mine ? null : h("button", { type: "button", class: "small", onclick: () => ctx.setIgnored(name, true) },
        t("chat.ignore", { name })),
      h("a", { href: `#/player/${encodeURIComponent(name)}` }, t("nav.profile"))));
  }

  function render() {
    const ignored = ctx.ignored();
    const atBottom = list.scrollTop + list.clientHeight >= list.scrollHeight - 8;
    fill(list, ctx.chatLog(key).filter((m) => !ignored.has(m.name)).map((m) => {
      const li = h("li", { class: "chat-msg" });
      li.append(
        h("button", { type: "button", class: "chat-name", "aria-haspopup": "true",
          onclick: () => nameMenu(m.name, li) }, m.name),
        h("span", { class: "chat-text" }, m.text));
      return li;
    }));
    if (atBottom) list.scrollTop = list.scrollHeight;
    fill(ignoredBox, ignored.size ? [t("chat.ignoring"), " ", [...ignored].map((name) =>
      h("button", { type: "button", class: "link", title: t("chat.unignore", { name }),
        onclick: () => ctx.setIgnored(name, false) }, `${name} ✕`))] : null);
  }

  const listener = (changed) => { if (changed === null || changed === key) render(); };
  ctx.chatListeners.add(listener);
  render();
  const el = h("section", { class: "chat", "aria-label": title }, h("h2", { class: "sr-only" }, title),
    list, ignoredBox, form);
  return { el, destroy: () => ctx.chatListeners.delete(listener), render };
}
