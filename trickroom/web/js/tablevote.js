// The vote box of a ranked table (Zone: wait for a dropped player; WoCG: invite a robot
// to a quitter's seat), drawn from the table's state: who is asked, who has answered,
// the time left, and our choice once made.

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
    ? [["yes", "Invite a robot"], ["no", "Keep waiting"]]
    : [["wait", "Wait"], ["dont_wait", "Don't wait"]];
  const label = Object.fromEntries(choices);
  const left = Math.max(0, (vote.deadline - now) / 1000);
  const name = seatName(state, vote.seat);
  fill(el,
    h("h2", { id: "vote-h" }, vote.kind === "invite_robot"
      ? `${name} has left. Invite a robot to their seat?`
      : `${name} has dropped. Wait for them?`),
    vote.outcome
      ? h("p", { class: "vote-outcome" }, `Decided: ${label[vote.outcome] || vote.outcome}.`)
      : h("p", {}, vote.kind === "invite_robot" ? "A robot plays the seat until a substitute comes." :
        "Wait: the game pauses until they are back. Don't wait: a robot plays their seat and the game goes on unrated.",
      h("span", { class: `countdown ${left < 8 ? "low" : ""}` }, ` ${seconds(left)} left`)),
    h("ul", { class: "vote-list" }, (vote.voters || []).map((seat) => h("li", {},
      `${who(state, seat)}: `, vote.cast[seat] ? h("b", {}, label[vote.cast[seat]] || vote.cast[seat]) : h("span", { class: "hint" }, "not yet")))),
    canVote ? h("div", { class: "bid-row" }, choices.map(([value, text]) =>
      h("button", { type: "button", class: value === choices[0][0] ? "primary" : "", "data-vote": value,
        onclick: () => send(vote.vote, value) }, text)))
      : mine !== undefined && !vote.outcome ? h("p", { class: "hint" }, `You voted: ${label[mine] || mine}.`) : null);
}
