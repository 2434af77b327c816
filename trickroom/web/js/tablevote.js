// The vote box of a ranked table (Zone: wait for a dropped player; WoCG: invite a robot
// to a quitter's seat), drawn from the table's state: who is asked, who has answered,
// the time left, and our choice once made.

import { t } from "./i18n.js";
import { h, fill, seconds } from "./dom.js";
import { seatName, shownVote, who } from "./tableselectors.js";

/** Draw the vote to show at `now` into `el` (hidden when there is none); `vote(id,
 *  choice)` sends our choice. */
export function drawVote(el, state, now, { vote: send }) {
  const vote = shownVote(state, now);
  if (!vote) { el.hidden = true; fill(el); return; }
  el.hidden = false;
  const mine = state.myVotes[vote.vote] ?? (state.seat != null ? vote.cast[state.seat] : undefined);
  const canVote = !vote.outcome && state.seat != null && vote.voters?.includes(state.seat) && mine === undefined;
  const choices = vote.kind === "invite_robot"
    ? [["yes", t("vote.invite_robot")], ["no", t("vote.keep_waiting")]]
    : [["wait", t("vote.wait")], ["dont_wait", t("vote.dont_wait")]];
  const label = Object.fromEntries(choices);
  const left = Math.max(0, (vote.deadline - now) / 1000);
  const name = seatName(state, vote.seat);
  fill(el,
    h("h2", { id: "vote-h" }, vote.kind === "invite_robot"
      ? t("vote.left_title", { name })
      : t("vote.dropped_title", { name })),
    vote.outcome
      ? h("p", { class: "vote-outcome" }, t("vote.decided", { choice: label[vote.outcome] || vote.outcome }))
      : h("p", {}, vote.kind === "invite_robot" ? t("vote.robot_explained") : t("vote.wait_explained"),
      " ", h("span", { class: `countdown ${left < 8 ? "low" : ""}` }, t("time.left", { time: seconds(left) }))),
    h("ul", { class: "vote-list" }, (vote.voters || []).map((seat) => h("li", {},
      t("vote.voter", { name: who(state, seat) }), vote.cast[seat] ? h("b", {}, label[vote.cast[seat]] || vote.cast[seat]) : h("span", { class: "hint" }, t("vote.not_yet"))))),
    canVote ? h("div", { class: "bid-row" }, choices.map(([value, text]) =>
      h("button", { type: "button", class: value === choices[0][0] ? "primary" : "", "data-vote": value,
        onclick: () => send(vote.vote, value) }, text)))
      : mine !== undefined && !vote.outcome ? h("p", { class: "hint" }, t("vote.you_voted", { choice: label[mine] || mine })) : null);
}
