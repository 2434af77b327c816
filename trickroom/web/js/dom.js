// The only way this client builds DOM: elements and text nodes, never HTML strings.
// Player names and chat come from other people; h() puts them in as text, so a
// name like "<script>" shows as those characters and nothing runs.

import { count } from "./counts.js";
import { t } from "./i18n.js";

const SVG_NS = "http://www.w3.org/2000/svg";

function setProps(el, props) {
  for (const [key, value] of Object.entries(props || {})) {
    if (value == null || value === false) continue;
    if (key === "class") el.setAttribute("class", value);
    else if (key === "dataset") Object.assign(el.dataset, value);
    else if (key === "style" && typeof value === "object") {
      for (const [prop, v] of Object.entries(value)) el.style.setProperty(prop.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`), v);
    }
    else if (key.startsWith("on") && typeof value === "function") {
      el.addEventListener(key.slice(2), value);
    } else if (key === "value" && "value" in el) el.value = value;
    else el.setAttribute(key, value === true ? "" : String(value));
  }
}

/** The nodes of children as h() and fill() take them: nested arrays flattened, null and
 *  false left out, anything else not a node put in as its text. */
function nodesOf(children) {
  const nodes = [];
  for (const child of children.flat(Infinity)) {
    if (child == null || child === false) continue;
    nodes.push(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return nodes;
}

function append(el, children) {
  for (const node of nodesOf(children)) el.append(node);
}

/** An HTML element: h("button", {class: "x", onclick: fn}, "text", otherNode). */
export function h(tag, props, ...children) {
  const el = document.createElement(tag);
  setProps(el, props);
  append(el, children);
  return el;
}

/** An SVG element, same calling convention as h(). */
export function s(tag, props, ...children) {
  const el = document.createElementNS(SVG_NS, tag);
  setProps(el, props);
  append(el, children);
  return el;
}

/** Replace an element's children. A node that is among both the old children and the new
 *  stays attached where it can: a button kept across redraws (one a robot's moves redraw
 *  several times a second) must not leave the page between a press and its release, or
 *  the browser drops the click; a field kept across redraws keeps its focus. */
export function fill(el, ...children) {
  const nodes = nodesOf(children);
  const kept = new Set(nodes);
  for (const old of [...el.childNodes]) if (!kept.has(old)) old.remove();
  let at = el.firstChild;
  for (const node of nodes) {
    if (node === at) at = at.nextSibling;
    else el.insertBefore(node, at);
  }
  return el;
}

let toastBox = null;

/** A server message as a sentence: capital first letter, closing stop ("the name 'Alice'
 *  is taken" → "The name 'Alice' is taken."). */
export function sentence(text) {
  const s = String(text ?? "").trim();
  if (!s) return s;
  return s[0].toUpperCase() + s.slice(1) + (/[.!?)]$/.test(s) ? "" : ".");
}

/** A short message at the bottom of the screen (at a table, its top), read out by screen
 *  readers, for `ms` milliseconds (or until the function returned is called). */
export function toast(text, kind = "info", ms = 4000) {
  if (!toastBox) {
    toastBox = h("div", { class: "toasts", role: "status", "aria-live": "polite" });
    document.body.append(toastBox);
  }
  const item = h("div", { class: `toast ${kind}` }, sentence(text));
  toastBox.append(item);
  if (ms != null) setTimeout(() => item.remove(), ms);
  return () => item.remove(); // to take it away sooner (or, with ms null, at all)
}

/** Points as a table says them: "1 pt", "13 pts", "−26 pts" (one true minus sign). */
export function points(n) {
  return `${n < 0 ? "−" : ""}${count(Math.abs(n), "pt")}`;
}

/** A time left: "45 s", "1:05". */

export function seconds(n) {
  n = Math.max(0, Math.round(n));
  return n >= 60 ? `${Math.floor(n / 60)}:${String(n % 60).padStart(2, "0")}` : t("time.seconds", { n });
}
