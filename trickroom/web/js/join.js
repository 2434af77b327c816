// An invite link, #/join/<table>/<code>: a friend's private table. A newcomer is signed
// in as a guest on the way; then the link seats them in a free seat (or the one kept for
// them), or, with the table full, lets them watch. A stale link says to ask for a new one.

import { h, fill, sentence } from "./dom.js";
import { t } from "./i18n.js";

const WHY = {
  not_invited: t("join.not_invited"),
  no_such_table: t("join.no_such_table"),
};

export function mount(main, ctx, params) {
  const status = h("p", { role: "status" }, t("join.joining"));
  const error = h("p", { class: "error", role: "alert" });
  fill(main, h("section", { class: "panel join-page", "aria-labelledby": "join-h" },
    h("h1", { id: "join-h" }, t("join.title")),
    status, error,
    h("p", {}, h("a", { href: "#/" }, t("join.to_lobby")))));
  const { table, code } = params;
  ctx.invites[table] = code;
  (async () => {
    try {
      if (!ctx.me) await ctx.loggedIn(await ctx.signIn({ type: "guest" }));
      if (!ctx.seatAt(table)) {
        try {
          const seated = await ctx.conn.request({ type: "sit", table, invite: code });
          ctx.rememberSeat(table, seated.seat, seated.seat_token, null);
        } catch (err) {
          if (err.code !== "table_full") throw err; // a full table: watch it instead
        }
      }
      ctx.navigate(`/table/${table}`);
    } catch (err) {
      status.textContent = "";
      error.textContent = WHY[err.code] || sentence(err.message);
    }
  })();
  return {};
}

/** The link that seats a friend at a private table. */
export function inviteLink(table, code) {
  return `${location.origin}${location.pathname}#/join/${encodeURIComponent(table)}/${encodeURIComponent(code)}`;
}
