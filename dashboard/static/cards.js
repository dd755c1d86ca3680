/* Card faces drawn as HTML (no image files, no fonts to download). Notation: engine.cards. */
"use strict";
const SUIT_SYMBOL = { S: "\u2660", H: "\u2665", C: "\u2663", D: "\u2666" };
const SUIT_NAME = { S: "spades", H: "hearts", C: "clubs", D: "diamonds" };

function esc(text) {
  return String(text ?? "").replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[c]));
}

function cardHTML(code, size) {
  const cls = size ? ` ${size}` : "";
  if (code === "BJ" || code === "SJ") {
    const red = code === "BJ" ? " red" : "";
    return `<span class="card joker${red}${cls}" title="${code === "BJ" ? "big joker" : "small joker"}" data-card="${code}"><span class="r">${code === "BJ" ? "BIG" : "SML"}</span><span class="s">\u2605</span></span>`;
  }
  const rank = code.slice(0, -1), suit = code.slice(-1);
  const red = suit === "H" || suit === "D" ? " red" : "";
  return `<span class="card${red}${cls}" title="${esc(rank)} of ${SUIT_NAME[suit] || "?"}" data-card="${esc(code)}"><span class="r">${esc(rank)}</span><span class="s">${SUIT_SYMBOL[suit] || "?"}</span></span>`;
}

function cardsHTML(cards, size) {
  return `<span class="cards">${(cards || []).map((c) => cardHTML(c, size)).join("")}</span>`;
}

function backsHTML(n, size) {
  return `<span class="cards">${Array.from({ length: n }, () => `<span class="card back ${size || ""}"></span>`).join("")}</span>`;
}

function suitHTML(suit) {
  if (!suit) return "no trump";
  const red = suit === "H" || suit === "D";
  return `<span style="color:${red ? "#ff6b6b" : "inherit"}">${SUIT_SYMBOL[suit]}</span> ${SUIT_NAME[suit]}`;
}
