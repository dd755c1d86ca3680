/* Card faces drawn as HTML (no image files, no fonts to download). Notation: engine.cards.
   Strings come from the page's catalog (dashboard/i18n.py): t(msgid, {name: value}). */
"use strict";
const CATALOG = (() => {
  const el = document.getElementById("catalog");
  try { return el ? JSON.parse(el.textContent) : {}; } catch (e) { return {}; }
})();
const LANG = CATALOG.lang || "zh_CN";
const SUIT_SYMBOL = { S: "\u2660", H: "\u2665", C: "\u2663", D: "\u2666" };

/* The catalog's translation of msgid, with {name} placeholders filled. */
function t(msgid, args) {
  const text = (CATALOG.messages || {})[msgid] || msgid;
  return args ? text.replace(/\{(\w+)\}/g, (m, k) => (args[k] !== undefined ? String(args[k]) : m)) : text;
}

/* Like t(), for HTML: the text is escaped, the args are HTML already (escaped by the caller). */
function tHTML(msgid, args) {
  const text = esc((CATALOG.messages || {})[msgid] || msgid);
  return text.replace(/\{(\w+)\}/g, (m, k) => (args[k] !== undefined ? String(args[k]) : m));
}

function ruleName(rule) {
  return (CATALOG.rules || {})[rule] || rule;
}

function esc(text) {
  return String(text ?? "").replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[c]));
}

/* Suit and joker names come from engine/names.py (one table for the pages and the CLI). */
const NAMES = CATALOG.names || { suits: {}, jokers: {} };

function suitName(suit) {
  return NAMES.suits[suit] || "?";
}

/* A card as a referee says it: 红桃A, 黑桃10, 大王 (English: A of hearts, big joker). */
function cardName(code) {
  if (NAMES.jokers[code]) return NAMES.jokers[code];
  return t("{suit}{rank}", { suit: suitName(code.slice(-1)), rank: code.slice(0, -1) });
}

function cardHTML(code, size) {
  const cls = size ? ` ${size}` : "";
  if (code === "BJ" || code === "SJ") {
    const red = code === "BJ" ? " red" : "";
    return `<span class="card joker${red}${cls}" title="${esc(cardName(code))}" data-card="${code}"><span class="r">${esc(code === "BJ" ? t("BIG") : t("SMALL"))}</span><span class="s">\u2605</span></span>`;
  }
  const rank = code.slice(0, -1), suit = code.slice(-1);
  const red = suit === "H" || suit === "D" ? " red" : "";
  return `<span class="card${red}${cls}" title="${esc(cardName(code))}" data-card="${esc(code)}"><span class="r">${esc(rank)}</span><span class="s">${SUIT_SYMBOL[suit] || "?"}</span></span>`;
}

function cardsHTML(cards, size) {
  return `<span class="cards">${(cards || []).map((c) => cardHTML(c, size)).join("")}</span>`;
}

/* A play split into its units (pairs of identical cards, then singles), each labelled: a
   long throw reads unit by unit instead of one run of cards. */
function unitsOf(cards) {
  const count = {};
  (cards || []).forEach((c) => { count[c] = (count[c] || 0) + 1; });
  const units = [];
  const seen = new Set();
  (cards || []).forEach((c) => {
    if (seen.has(c)) return;
    seen.add(c);
    const n = count[c];
    if (n >= 2) units.push({ kind: n === 2 ? "pair" : "set", cards: Array(n).fill(c) });
    else units.push({ kind: "single", cards: [c] });
  });
  const pairs = units.filter((u) => u.kind !== "single");
  return [...pairs, ...units.filter((u) => u.kind === "single")];
}

function unitsHTML(cards, size) {
  const units = unitsOf(cards);
  if ((cards || []).length <= 2 || units.length < 2) return cardsHTML(cards, size);
  const label = { pair: t("pair"), set: t("set"), single: t("single") };
  return `<span class="units">${units.map((u) => `<span class="unit" data-unit="${u.kind}">${cardsHTML(u.cards, size)}<span class="ulabel">${esc(label[u.kind])}</span></span>`).join("")}</span>`;
}

function backsHTML(n, size) {
  return `<span class="cards">${Array.from({ length: n }, () => `<span class="card back ${size || ""}"></span>`).join("")}</span>`;
}

/* A deal's trump as its judge took it: level and suit; "not fixed yet" while the declarations
   run; "unknown" when the judge could not fix it (a referee must); a doubted declaration marked. */
function trumpHTML(tr) {
  tr = tr || {};
  const level = esc(tr.level || "");
  if (tr.unknown) return `${level} <span class="status" data-trump="unknown">${esc(t("unknown: awaiting a referee"))}</span>`;
  if (tr.known === false) return `${level} <span class="muted" data-trump="open">${esc(t("not fixed yet"))}</span>`;
  const doubt = tr.doubted ? ` <span class="status" data-provisional>${esc(t("awaiting a referee"))}</span>` : "";
  return `${level} ${suitHTML(tr.suit)}${doubt}`;
}

function suitHTML(suit) {
  if (!suit) return esc(t("no trump"));
  const red = suit === "H" || suit === "D";
  return `<span style="color:${red ? "#ff6b6b" : "inherit"}">${SUIT_SYMBOL[suit]}</span>${esc(suitName(suit))}`;
}

/* The match clock (view.clock, dashboard/view.py): time left, counted down on this page from
   the match's wall start (every .match-clock span once a second), a warning at 5 minutes, and
   once the match is over on time, which at-time rule decided it. ``delay``: the overlay's
   seconds behind the table, so its clock shows the same moment as its cards. */
const AT_TIME_BY = {
  level: () => t("the higher level won"),
  banker: () => t("equal levels: the banker side won"),
  extra_deal: () => t("equal levels after the extra deal: a referee decides"),
  playoff: () => t("equal levels: the sheet's play-off, run by a referee"),
  unstated: () => t("the sheet states no at-time rule: a referee decides"),
};

function clockHTML(c, delay) {
  if (!c || !c.limit_s) return "";
  if (c.over) {
    const how = c.on_time ? (AT_TIME_BY[c.on_time.by] || (() => c.on_time.by))() : "";
    return `<span class="match-clock over" data-clock="over">${esc(c.on_time ? t("decided on time: {how}", { how }) : t("match over"))}</span>`;
  }
  const deadline = c.start_wall != null ? c.start_wall + c.limit_s + (delay || 0) : "";
  return `<span class="match-clock" data-clock="running" data-deadline="${esc(deadline)}" data-left="${esc(c.left_s ?? c.limit_s)}" data-warn="${esc(c.warn_s ?? 300)}">${esc(clockWords(c.left_s ?? c.limit_s, c.warn_s ?? 300))}</span>`;
}

function clockWords(left, warn) {
  if (left <= 0) return t("time is up");
  const s = Math.ceil(left);
  const mm = `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
  return left <= warn ? t("{left} left: time is nearly up", { left: mm }) : t("{left} left", { left: mm });
}

function tickClocks() {
  for (const el of document.querySelectorAll(".match-clock[data-deadline]")) {
    const deadline = parseFloat(el.dataset.deadline);
    const left = Number.isFinite(deadline) ? deadline - Date.now() / 1000 : parseFloat(el.dataset.left);
    const warn = parseFloat(el.dataset.warn);
    el.textContent = clockWords(left, warn);
    el.classList.toggle("warn", left <= warn && left > 0);
    el.classList.toggle("up", left <= 0);
    el.dataset.clock = left <= 0 ? "up" : left <= warn ? "warn" : "running";
  }
}
setInterval(tickClocks, 1000);
