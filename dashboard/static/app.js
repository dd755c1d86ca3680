/* tablescan referee console. One SSE stream per page; every view is drawn from the engine's
   state sent by the server (this file judges nothing). Every string a referee reads goes
   through t() (cards.js), so it comes from the gettext catalog in the page's language. */
"use strict";

const PAGE = document.body.dataset.page;
const TID = document.body.dataset.table;
const ROLE = document.body.dataset.role;
const CAN_RULE = ROLE === "head" || ROLE === "referee";
const CSRF = document.querySelector('meta[name="csrf-token"]').content;
const $ = (sel, root) => (root || document).querySelector(sel);
const $$ = (sel, root) => Array.from((root || document).querySelectorAll(sel));
let lastView = null;
let seenSeq = -1;
let RULES = null;  // the table's rules with the sheet's quotes (GET /api/tables/<id>/rules)
let HISTORY = [];  // corrections with what each changed (GET .../corrections/history)

function setLive(on) {
  const el = $("#live");
  if (!el) return;
  el.textContent = "● " + (on ? t("live") : t("reconnecting…"));
  el.className = "live " + (on ? "on" : "off");
}

function openStream(url, handlers) {
  const es = new EventSource(url);
  es.onopen = () => setLive(true);
  es.onerror = () => setLive(false);
  for (const [name, fn] of Object.entries(handlers)) {
    es.addEventListener(name, (m) => { setLive(true); fn(JSON.parse(m.data), m); });
  }
  return es;
}

async function post(url, body) {
  const resp = await fetch(url, {
    method: "POST",
    credentials: "same-origin",
    headers: { "Content-Type": "application/json", "X-CSRF-Token": CSRF },
    body: JSON.stringify(body),
  });
  const data = await resp.json().catch(() => ({}));
  if (!resp.ok) throw new Error(data.error || `HTTP ${resp.status}`);
  return data;
}

async function getJSON(url) {
  const resp = await fetch(url, { credentials: "same-origin" });
  if (!resp.ok) throw new Error(`HTTP ${resp.status}`);
  return resp.json();
}

function seatName(v, seat) {
  const s = (v.seats || [])[seat];
  return s ? esc(s.name) : esc(t("seat {n}", { n: seat }));
}

function clock(epoch) {
  return epoch ? new Date(epoch * 1000).toLocaleTimeString(LANG === "en" ? "en" : "zh-CN") : "–";
}

function statusText(status) {
  return { open: t("open"), upheld: t("upheld"), dismissed: t("dismissed") }[status] || status;
}

function gameText(game) {
  return { tractor: t("80 points (Tractor)"), gouji: t("Gouji") }[game] || game;
}

function penaltyText(p) {
  if (typeof p === "string" && p) return esc(p);  /* Gouji: the sheet's own words */
  if (!p) return "";
  if (typeof p === "string") return esc(p);
  const bits = [];
  if (p.points) bits.push(esc(t("{n} points", { n: p.points })));
  if (p.levels) bits.push(esc(t("{n} level(s)", { n: p.levels })));
  if (p.lose_bank) bits.push(esc(t("loses the bank")));
  return bits.join(" · ") || esc(t("no penalty"));
}

/* Keep what the referee is typing when a new state redraws the page. */
function preserveInputs(root, draw) {
  const values = {};
  const focused = document.activeElement && document.activeElement.dataset ? document.activeElement.dataset.key : null;
  $$("[data-key]", root).forEach((el) => { values[el.dataset.key] = el.value; });
  draw();
  $$("[data-key]", root).forEach((el) => { if (values[el.dataset.key] !== undefined) el.value = values[el.dataset.key]; });
  if (focused) { const el = $(`[data-key="${focused}"]`, root); if (el) el.focus(); }
}

function navBadge(v) {
  const b = $("#nav-open");
  if (!b) return;
  b.textContent = v.open_violations || 0;
  b.classList.toggle("hot", (v.open_violations || 0) > 0);
}

/* One figure per side, with what it means. 80 points: the attackers' score (captured points
   plus the bottom and penalties) decides; the banker side's figure is its level. */
function sides(v) {
  if (!v.teams) return [];
  return v.teams.map((team) => {
    if (team.banker_side) {
      return { team, label: t("Banker side"), figure: team.level ?? "–", meaning: t("level being played; the banker side keeps the stage while the attackers stay under 80") };
    }
    const total = v.attacker_points ?? 0;
    const extra = total - (team.trick_points || 0);
    return {
      team, label: t("Attackers"), figure: total,
      meaning: extra ? t("score: {cards} from tricks, {extra} from the bottom and penalties; 80 takes the stage", { cards: team.trick_points || 0, extra: (extra > 0 ? "+" : "") + extra })
        : t("score from tricks; 80 takes the stage"),
    };
  });
}

function scoreStrip(v) {
  const el = $("#score-strip");
  if (!el || !v.teams) return;
  if (gameView(v).strip) { el.innerHTML = gameView(v).strip(v); return; }
  el.innerHTML = sides(v).map((s) => `<span class="chip"${s.team.banker_side ? "" : ' id="attacker-points"'}>${esc(s.label)} · ${esc(s.team.names.join(" · "))} <b>${esc(s.figure)}</b></span>`).join("")
    + `<span class="chip">${esc(t("hand {n}", { n: v.hand ?? "–" }))} · ${esc(t("seq {n}", { n: v.seq }))}</span>`;
}

/* ---------------------------------------------------------------- table view */

function seatPositions(n) {
  return Array.from({ length: n }, (_, i) => {
    const a = ((90 - (i * 360) / n) * Math.PI) / 180;
    return { left: 50 + 34 * Math.cos(a), top: 50 + 36 * Math.sin(a) };
  });
}

function engineText(v) {
  if (String(v.engine || "").startsWith("replay only")) return t("Replay only: this game's referee engine is not available, nothing is judged.");
  if (!v.game) return t("Waiting for the match to start.");
  return t("Judged by the {game} referee, rules: {profile}", { game: gameText(v.game), profile: v.profile });
}

/* Each game's own panels, chosen by the registry's view key (engine.games.Game.view, sent as
   v.view): the headline chips, the side panels of the table page and the hall card. */
const GAME_VIEWS = {
  tractor: {
    headline: (v) => `<span class="chip">${esc(t("hand {n}", { n: v.hand ?? "–" }))}</span><span class="chip">${esc(t("level {l}", { l: v.level ?? "–" }))}</span>`
      + `<span class="chip trump" id="trump-chip">${esc(t("trump"))} ${trumpHTML(v.trump)}</span>`
      + `<span class="chip" id="banker-chip">${esc(t("banker"))} ${v.banker != null ? seatName(v, v.banker) + ((v.trump || {}).doubted ? ` <span class="status" data-provisional>${esc(t("awaiting a referee"))}</span>` : "") : (v.trump || {}).unknown ? `<span class="status">${esc(t("unknown: awaiting a referee"))}</span>` : `<span class="muted">${esc(t("not fixed yet"))}</span>`}</span>`,
    side: null,
    hall: (tb) => `<div class="teams">${(tb.teams || []).map((x) => `<div>${esc(x.names.join(" · "))}${x.banker_side ? " ★" : ""}<br><span class="muted">${esc(t("level {l}", { l: x.level }))}</span></div>`).join("")}</div>`
      + `<div class="small">${esc(t("trump"))} ${tb.trump ? trumpHTML(tb.trump) : "–"} · ${esc(t("attackers {n} points", { n: tb.attacker_points ?? 0 }))}</div>`,
  },
  gouji: {
    headline: (v) => `<span class="chip">${esc(t("deal {n}", { n: v.hand ?? "–" }))}</span>`
      + goujiTopChip(v),
    side: (v, live, trick) => drawGoujiSide(v, live, trick),
    nowHead: (live) => (live ? t("Round in progress") : t("Last round")),
    stood: (v, tr) => t("{name}'s set stood", { name: goujiName(v, tr.winner) }),
    wonLabel: () => t("set stood"),
    noBanker: true,
    result: (res, names) => t("{who} after {n} deal(s); deals won {won}, points {points}", {
      who: res.winner != null ? t("{side} won", { side: names(res.winner) }) : t("tied"),
      n: res.hands ?? "–",
      won: (res.deals_won || []).join(" : ") || "–",
      points: (res.teams || []).join(" : ") || "–",
    }),
    strip: (v) => `<span class="chip">${esc(t("Finishing order"))} ${goujiPlacesText(v, v.panel)}</span><span class="chip">${esc(t("deal {n}", { n: v.hand ?? "–" }))} · ${esc(t("seq {n}", { n: v.seq }))}</span>`,  /* Gouji has no banker: the record's banker is the deal's first leader */
    hall: (tb) => `<div class="small" data-gouji="places">${esc(t("Finishing order"))}: ${goujiPlacesText(tb, tb.panel)}</div>`
      + `<div class="small">${goujiTopChip(tb)}${((tb.panel || {}).burns || []).length ? " " + esc(t("{n} burn(s)", { n: tb.panel.burns.length })) : ""}</div>`,
  },
};

/* A game without panels of its own (a view key not above): the shared table, its deal,
   tricks and flags, with no banker, level, trump or bottom (those are 80-points'). */
const PLAIN_VIEW = {
  headline: (v) => `<span class="chip">${esc(t("deal {n}", { n: v.hand ?? "–" }))}</span>`,
  side: (v, live) => {
    $("#centre").innerHTML = `<div class="label">${esc(live ? t("trick {n}", { n: v.tricks.length + 1 }) : t("waiting"))}</div>`;
    $("#score").innerHTML = `<h2>${esc(t("Score"))}</h2><div class="kv"><span>${esc(t("Tricks played"))}</span><b id="tricks-played">${v.tricks.length}</b></div>`;
  },
  noBanker: true,
  result: (res, names) => (res.winner != null ? t("{side} won", { side: names(res.winner) }) : t("tied")),
  strip: (v) => `<span class="chip">${esc(t("deal {n}", { n: v.hand ?? "–" }))} · ${esc(t("seq {n}", { n: v.seq }))}</span>`,
  hall: (tb) => `<div class="teams">${(tb.teams || []).map((x) => `<div>${esc(x.names.join(" · "))}</div>`).join("")}</div>`,
};

function gameView(v) { return GAME_VIEWS[v.view || "tractor"] || PLAIN_VIEW; }

function goujiName(v, seat) { return (v.seats ? (v.seats[seat] || {}).name : (v.players || [])[seat]) ?? t("seat {n}", { n: seat }); }

/* 头科 … 大落 so far this deal (the last finished deal's order between deals). */
function goujiPlacesText(v, p) {
  if (!p) return esc(t("none yet"));
  let places = p.places || [];
  if (!places.length && (p.deals || []).length) {
    const last = p.deals[p.deals.length - 1];
    places = (last.finishing_order || []).map((s, i) => ({ seat: s, place: p.place_names[i] })).filter((x) => x.seat != null);
  }
  return places.length ? places.map((x) => `<span class="chip small" data-place="${esc(x.place)}">${esc(x.place)} ${esc(goujiName(v, x.seat))}</span>`).join(" ") : esc(t("none yet"));
}

function goujiTopChip(v) {
  const top = (v.panel || {}).gouji_top;
  return top && v.status === "playing" ? `<span class="chip trump" data-gouji="top">${esc(t("够级 set by {name}: only the 对头 answers", { name: goujiName(v, top.seat) }))}</span>` : "";
}

/* "playing", "between hands" or "match over": never "playing" once the match has ended. */
function statusWord(v) {
  if ((v.match || {}).over || v.status === "match over") return t("match over");
  return v.status === "playing" ? t("playing") : t("between hands");
}

/* The match result in words: the winning side (or none yet) and both sides' levels (Gouji:
   deals won and points, GAME_VIEWS.gouji.result). */
function resultText(v, res) {
  const names = (i) => ((v.teams || [])[i] || { names: [String(i)] }).names.join(" · ");
  const own = gameView(v).result;
  if (own) return own(res, names);
  const levels = (res.levels || []).map((l, i) => t("{side} level {l}", { side: names(i), l })).join(" / ");
  const who = res.winner != null ? t("{side} won", { side: names(res.winner) }) : t("no side passed its last level");
  return t("{who} after {n} hand(s); {levels}", { who, n: res.hands ?? "–", levels });
}

/* The match panel: hand n, every hand's levels after, the next banker, "match over". */
function drawMatch(v) {
  const el = $("#match");
  if (!el || !v.seats) return;
  const m = v.match || { hands: [] };
  const noBanker = gameView(v).noBanker;  /* Gouji: deals and their finishing order, no banker or levels */
  /* a deal's result rests on its reads: provisional while one of them awaits a referee */
  const doubted = (n) => ((m.hands || []).find((h) => h.hand === n) || {}).provisional
    ? ` <span class="status" data-provisional>${esc(t("provisional"))}</span>` : "";
  const rows = noBanker
    ? ((v.panel || {}).deals || []).map((d, i) => `<tr data-hand="${d.hand ?? i + 1}"><td>${d.hand ?? i + 1}</td><td>${goujiPlacesText(v, { places: (d.finishing_order || []).map((seat, k) => ({ seat, place: (v.panel.place_names || [])[k] })).filter((x) => x.seat != null) })}${doubted(d.hand ?? i + 1)}</td></tr>`).join("")
    : (m.hands || []).map((h) => `<tr data-hand="${h.hand}"><td>${h.hand}</td><td>${h.banker != null ? seatName(v, h.banker) : "–"}</td><td>${esc((h.levels_after || []).join(" : ") || "–")}${doubted(h.hand)}</td><td>${h.next_banker != null ? seatName(v, h.next_banker) : "–"}</td></tr>`).join("");
  const heads = noBanker ? `<th>#</th><th>${esc(t("Finishing order"))}</th>` : `<th>#</th><th>${esc(t("banker"))}</th><th>${esc(t("Levels after"))}</th><th>${esc(t("Next banker"))}</th>`;
  const head = m.over
    ? `<div class="match-over" id="match-over"><b>${esc(t("Match over"))}</b> · ${esc(resultText(v, m.result || {}))}${m.provisional ? ` <span class="status" data-provisional>${esc(t("provisional"))}</span>` : ""}</div>`
    : `<div class="small">${esc(t("Hand {n} of the match", { n: v.hand ?? "–" }))}${m.next_banker != null && !noBanker ? " · " + esc(t("next banker {name}", { name: (v.seats[m.next_banker] || {}).name || m.next_banker })) : ""}</div>`;
  const playing = v.status === "playing";
  const slot = `<div class="confirm-slot">${pendingMatch ? confirmHTML(pendingMatch) : ""}</div>`;
  const controls = CAN_RULE && !m.over
    ? `<div class="controls">${playing ? `<button class="rule-btn" data-match="end_hand">${esc(t("End the hand"))}</button>` : `<button class="rule-btn" data-match="start_hand">${esc(t("Start the next hand"))}</button>`}<button class="rule-btn danger" data-match="end_match">${esc(t("End the match"))}</button><span class="small msg"></span></div>${slot}`
    /* a finished match: only a head referee may reopen it (asked first, like every action) */
    : ROLE === "head" && m.over
      ? `<div class="controls"><button class="rule-btn danger" data-match="reopen_match">${esc(t("Reopen the match"))}</button><span class="small msg"></span></div>${slot}`
      : "";
  el.innerHTML = `<h2>${esc(t("Match"))}</h2>${head}`
    + `<table class="grid small"><thead><tr>${heads}</tr></thead><tbody>${rows || `<tr><td colspan="4" class="muted">${esc(t("No hand finished yet."))}</td></tr>`}</tbody></table>`
    + controls;
  tickClocks();
}

/* What each match action does, said before it is done: each is chained in the record and
   cannot be taken back from the page. */
function matchActionText(action) {
  return {
    end_hand: t("End this hand now: the record gets hand_end and the judge scores the hand as it stands. This cannot be undone."),
    start_hand: t("Start the next hand: the record gets hand_start with the banker and level the judge gives. This cannot be undone."),
    end_match: t("End the whole match: the record gets match_end with the result so far; no further hand can start at this table unless a head referee reopens the match. This cannot be undone."),
    reopen_match: t("Reopen this finished match: the record gets match_reopen with your name (its match_end stays in the record), and the next hand can start at this table. This cannot be undone."),
  }[action] || "";
}

let pendingMatch = null;  // the match action asked for and not yet confirmed (kept across redraws)

function confirmHTML(action) {
  return `<div class="confirm panel" data-confirm="${esc(action)}" role="alertdialog"><p>${esc(matchActionText(action))}</p><div class="controls"><button class="rule-btn danger" data-match-confirm="${esc(action)}">${esc(t("Yes, do it"))}</button><button class="rule-btn" data-match-cancel>${esc(t("Cancel"))}</button></div></div>`;
}

document.addEventListener("click", async (e) => {
  if (!e.target.closest || !TID) return;
  const ask = e.target.closest("[data-match]");
  if (ask || e.target.closest("[data-match-cancel]")) {  /* the first tap only asks */
    pendingMatch = ask ? ask.dataset.match : null;
    if (lastView) drawMatch(lastView);
    return;
  }
  const btn = e.target.closest("[data-match-confirm]");
  if (!btn) return;
  pendingMatch = null;
  try {
    await post(`/api/tables/${encodeURIComponent(TID)}/match`, { action: btn.dataset.matchConfirm });
    if (lastView) drawMatch(lastView);
  } catch (err) {
    const msg = $("#match .msg");
    if (msg) msg.textContent = err.message;
  }
});

/* The referee's tribute form: giver, receiver, the cards (or a count when unseen), 进贡/还贡. */
function tributeForm(v) {
  const seats = v.seats.map((s, i) => `<option value="${i}">${esc(s.name)}</option>`).join("");
  return `<form id="tribute-form" class="controls small">`
    + `<label>${esc(t("Giver (进贡者)"))} <select name="seat">${seats}</select></label>`
    + `<label>${esc(t("Receiver (吃贡者)"))} <select name="to">${seats}</select></label>`
    + `<label>${esc(t("Cards handed over"))} <input name="cards" size="10" placeholder="${esc(t("e.g. {cards}", { cards: "BJ 2S" }))}"></label>`
    + `<label>${esc(t("Count (cards not seen)"))} <input name="count" type="number" min="1" max="36"></label>`
    + `<select name="kind" aria-label="${esc(t("Tribute or return"))}"><option value="jin">${esc(t("进贡 (tribute)"))}</option><option value="huan">${esc(t("还贡 (return)"))}</option></select>`
    + `<button class="rule-btn" type="submit">${esc(t("Enter the tribute"))}</button><span class="msg"></span></form>`;
}

document.addEventListener("submit", async (e) => {
  const form = e.target;
  if (!form || form.id !== "tribute-form" || !TID) return;
  e.preventDefault();
  const f = new FormData(form);
  const msg = $(".msg", form);
  const body = { action: "tribute", seat: f.get("seat"), to: f.get("to"), cards: f.get("cards"), kind: f.get("kind") };
  if (f.get("count")) body.count = f.get("count");
  try {
    await post(`/api/tables/${encodeURIComponent(TID)}/match`, body);
    msg.textContent = t("entered");
    form.reset();
  } catch (err) {
    msg.textContent = err.message;
  }
});

function drawTable(v) {
  const felt = $("#felt");
  const title = `<span class="big">${esc(t("Table {id}", { id: v.id }))}</span>`;
  $("#headline").innerHTML = v.seats
    ? title + gameView(v).headline(v)
      + (v.clock ? `<span class="chip clock-chip" id="match-clock">${clockHTML(v.clock)}</span>` : "")
      + `<span class="chip">${esc(gameText(v.game))} · ${esc(v.profile)}</span><span class="muted" id="play-status">${esc(t("seq {n}", { n: v.seq }))} · ${esc(statusWord(v))}</span>`
    : title + `<span class="muted">${esc(t("Waiting for the match to start."))}</span>`;
  if (!v.seats) return;
  drawMatch(v);
  const pos = seatPositions(v.seats.length);
  let seats = $$(".seat", felt);
  if (seats.length !== v.seats.length) {
    seats.forEach((s) => s.remove());
    v.seats.forEach((_, i) => {
      const d = document.createElement("div");
      d.className = "seat";
      d.dataset.seat = i;
      d.style.left = `${pos[i].left}%`;
      d.style.top = `${pos[i].top}%`;
      felt.appendChild(d);
    });
    seats = $$(".seat", felt);
  }
  const trick = v.current_trick || (v.tricks.length ? v.tricks[v.tricks.length - 1] : null);
  const live = !!v.current_trick;
  const bySeat = {};
  if (trick) trick.plays.forEach((p) => { bySeat[p.seat] = p; });
  const nextSeat = v.status === "playing" ? v.next_seat : null;
  $("#turn").innerHTML = nextSeat != null
    ? `<span class="turn-arrow">▶</span> ${esc(t("{name} to play", { name: (v.seats[nextSeat] || {}).name || nextSeat }))}`
    : `<span class="muted">${esc(v.status === "playing" ? t("Waiting for the next play") : t("No hand in play"))}</span>`;
  $("#turn").dataset.seat = nextSeat ?? "";
  v.seats.forEach((s, i) => {
    const p = bySeat[i];
    const won = !live && trick && trick.winner === i;
    const turn = nextSeat === i;
    seats[i].classList.toggle("turn", turn);
    seats[i].innerHTML = `<div class="name team${s.team}">${turn ? `<span class="turn-tag">${esc(t("to play"))}</span>` : ""}${esc(s.name)}${s.banker && !gameView(v).noBanker ? `<span class="banker">★ ${esc(t("banker"))}</span>` : ""}</div>`
      + `<div class="meta">${s.time_per_play != null ? esc(t("{s}s / play", { s: s.time_per_play })) : "&nbsp;"}${s.cards_left != null ? " · " + esc(t("{n} left", { n: s.cards_left })) : ""}${won ? ` · <b>${esc(gameView(v).wonLabel ? gameView(v).wonLabel() : t("won the trick"))}</b>` : ""}</div>`
      + `<div class="played" style="opacity:${live ? 1 : 0.55}" data-seq="${p ? p.seq : ""}">${p ? unitsHTML(p.cards, "lg") : ""}</div>`;
    if (p && p.seq > seenSeq && live) $$(".card", seats[i]).forEach((c) => c.classList.add("fresh"));
  });
  drawTrickNow(v, trick, live);
  $$("[data-view]").forEach((el) => { el.hidden = el.dataset.view !== (v.view || "tractor"); });
  const b = v.bottom || {};
  if (gameView(v).side) { gameView(v).side(v, live, trick); } else {
    $("#centre").innerHTML = `<div class="label">${esc(live ? t("trick {n}", { n: v.tricks.length + 1 }) : trick ? t("trick {n} done", { n: v.tricks.length }) : t("waiting"))}</div>`
      + `<div class="num">${v.attacker_points ?? 0}</div><div class="label">${esc(t("attackers' score"))}</div>`
      + `<div class="bottom-cards">${b.cards ? cardsHTML(b.cards, "sm") : b.count ? backsHTML(Math.min(b.count, 8), "sm") : ""}</div>`
      + `<div class="label">${esc(b.cards ? t("bottom revealed") : b.count ? t("bottom: {n} face down", { n: b.count }) : "")}</div>`;
    $("#score").innerHTML = `<h2>${esc(t("Score"))}</h2><div class="scorebox">${sides(v).map((s) => `<div class="side-card${s.team.banker_side ? " bank" : ""}"><div class="muted small">${esc(s.label)}</div><div>${esc(s.team.names.join(" · "))}</div><div class="pts"${s.team.banker_side ? "" : ' id="attacker-points"'}>${esc(s.figure)}</div><div class="muted small">${esc(s.meaning)}</div></div>`).join("")}</div>`
      + `<div class="kv"><span>${esc(t("Bottom multiplier"))}</span><b>${b.multiplier ?? "–"}</b><span>${esc(t("Tricks played"))}</span><b>${v.tricks.length}</b>`
      + (v.outcome ? `<span>${esc(t("Outcome"))}</span><b>${esc(outcomeText(v, v.outcome))}</b>` : "") + `</div>`;
  }
  $("#flags").innerHTML = `<h2>${esc(t("Flags"))} <a class="small" href="/tables/${encodeURIComponent(v.id)}/violations">${esc(t("queue →"))}</a></h2>`
    + (v.violations.length ? v.violations.slice(-6).reverse().map((x) => `<div class="flag ${esc(x.status || "open")}"><b>${esc(ruleName(x.rule))}</b> · ${seatName(v, x.seat)} <span class="status ${esc(x.status || "open")}">${esc(statusText(x.status || "open"))}</span></div>`).join("") : `<p class="muted">${esc(t("No violation flagged."))}</p>`)
    + (v.needs_referee.length ? `<div class="flag"><b>${esc(t("{n} reading(s) need a referee", { n: v.needs_referee.length }))}</b> · <a href="/tables/${encodeURIComponent(v.id)}/corrections">${esc(t("answer"))}</a></div>` : "");
  $("#engine").innerHTML = `<h2>${esc(t("Referee engine"))}</h2><div class="small">${esc(engineText(v))}</div>`
    + (v.errors.length ? `<div class="small warn-text">${esc(t("{n} record problem(s); see Health", { n: v.errors.length }))}</div>` : "");
  $("#tricks tbody").innerHTML = v.tricks.map((tr, i) => `<tr><td data-label="#">${i + 1}</td><td data-label="${esc(t("Leader"))}">${seatName(v, tr.leader)}</td><td data-label="${esc(t("Plays"))}">${tr.plays.map((p) => `<span class="byseat"><span class="muted small">${seatName(v, p.seat)}</span> ${unitsHTML(p.cards, "sm")}</span>`).join(" ")}</td><td data-label="${esc(t("Winner"))}">${tr.winner != null ? seatName(v, tr.winner) : "–"}</td><td data-label="${esc(t("Points"))}">${tr.points ?? 0}</td></tr>`).reverse().join("")
    || `<tr><td colspan="5" class="muted">${esc(t("No trick finished yet."))}</td></tr>`;
}

/* The trick in progress, seat by seat in the order played, a throw split into its units. */
function drawTrickNow(v, trick, live) {
  const el = $("#trick-now");
  if (!el) return;
  const gv = gameView(v);
  const head = gv.nowHead ? gv.nowHead(live) : live ? t("Trick in progress") : t("Last trick");
  if (!trick || !trick.plays.length) { el.innerHTML = `<h2>${esc(head)}</h2><p class="muted">${esc(t("No card on the table."))}</p>`; return; }
  el.innerHTML = `<h2>${esc(head)}</h2>` + trick.plays.map((p, i) => `<div class="trick-row${trick.winner === p.seat ? " win" : ""}" data-seat="${p.seat}"><span class="who">${seatName(v, p.seat)}${i === 0 ? ` <span class="chip small">${esc(t("led"))}</span>` : ""}</span>${unitsHTML(p.cards, "sm")}</div>`).join("")
    + (live ? "" : trick.winner != null ? `<div class="small muted">${esc(gv.stood ? gv.stood(v, trick) : t("won by {name} · {n} points", { name: (v.seats[trick.winner] || {}).name || trick.winner, n: trick.points ?? 0 }))}</div>` : "");
}

function outcomeText(v, o) {
  if (o.finishing_order) return o.finishing_order.map((s) => (v.seats[s] || {}).name || s).join(" › ");
  const bits = [];
  if (o.side) bits.push(t("{side} +{n} level(s)", { side: o.side === "banker" ? t("banker side") : t("attackers"), n: o.levels ?? 0 }));
  if (o.new_level) bits.push(t("to level {l}", { l: o.new_level }));
  if (o.next_banker != null) bits.push(t("next banker {name}", { name: (v.seats[o.next_banker] || {}).name || o.next_banker }));
  return bits.join(" · ") || JSON.stringify(o);
}

function drawGoujiSide(v, live, trick) {
  $("#centre").innerHTML = `<div class="label">${esc(live ? t("round {n}", { n: v.tricks.length + 1 }) : t("waiting"))}</div>`
    + `<div class="num">${trick ? trick.plays.length : 0}</div><div class="label">${esc(t("sets on this round"))}</div>`
    + (live && trick.passes && trick.passes.length ? `<div class="label">${esc(t("passed: {names}", { names: trick.passes.map((s) => (v.seats[s] || {}).name || s).join(", ") }))}</div>` : "");
  const p = v.panel || {};
  const burns = (p.burns || []).map((b) => esc(t("{name} burned {victim}", { name: goujiName(v, b.seat), victim: b.victim != null ? goujiName(v, b.victim) : "–" }))).join(" · ");
  const tribute = (p.tribute || []).map((x) => `<span class="byseat" data-tribute="${esc(x.seq)}">${esc(x.back ? t("{from} returns {n} to {to} (还贡)", { from: goujiName(v, x.from), to: goujiName(v, x.to), n: x.count ?? 1 }) : t("{from} pays {n} to {to} (进贡)", { from: goujiName(v, x.from), to: goujiName(v, x.to), n: x.count ?? 1 }))} ${(x.cards || []).length ? cardsHTML(x.cards, "sm") : `<span class="muted small">${esc(t("cards not seen"))}</span>`}</span>`).join(" · ");
  const tributePoints = (p.tribute_points || []).map((x) => `${esc(goujiName(v, x.seat))} ${esc(x.what)} +${esc(x.points)}`).join(" · ");
  const rule = p.tribute_rule || {};
  const ruleText = { per_card: t("each card handed over scores 1 for the receiver (吃贡者), none for the giver"), points: t("scored as the items 点贡, 闷贡, 烧贡; the cards are not counted"), none: t("this sheet has no tribute"), unstated: t("the sheet says nothing about tribute: recorded, not scored") }[rule.mode];
  const entry = $("#tribute-entry");
  if (entry) {  /* a tribute comes before the deal's first set, where the sheet has one */
    const open = CAN_RULE && v.status === "playing" && !v.tricks.length && !(trick && trick.plays.length) && rule.mode !== "none";
    if (!open) entry.innerHTML = "";
    else if (!$("#tribute-form", entry)) entry.innerHTML = tributeForm(v);
  }
  const ruleEl = $("#gouji-tribute-rule");
  if (ruleEl) ruleEl.innerHTML = `${esc(ruleText || "")}${rule.quote ? ` <span class="muted" data-quote>${esc(t("Sheet: {quote}", { quote: rule.quote }))}</span>` : ""}`;
  const last = (p.deals || []).length ? p.deals[p.deals.length - 1] : null;
  const scores = last && last.scores ? Object.entries(last.scores.seats || {}).map(([s, n]) => `${esc(goujiName(v, Number(s)))} ${esc(n)}`).join(" · ") : "";
  $("#score").innerHTML = `<h2>${esc(t("Finishing order"))}</h2><div class="places" id="gouji-places">${goujiPlacesText(v, p)}</div>`
    + `<div class="kv">${v.seats.map((s) => `<span>${esc(s.name)} <span class="muted small">${esc(t("team {n}", { n: s.team + 1 }))}</span></span><b>${s.cards_left ?? "–"}</b>`).join("")}`
    + `<span>${esc(t("Rounds played"))}</span><b>${v.tricks.length}</b>`
    + `<span>${esc(t("够级 now"))}</span><b id="gouji-top">${p.gouji_top ? esc(t("yes, by {name}", { name: goujiName(v, p.gouji_top.seat) })) : esc(t("no"))}</b>`
    + `<span>${esc(t("Burns (烧)"))}</span><b id="gouji-burns">${burns || esc(t("none"))}</b>`
    + `<span>${esc(t("Opened (开点)"))}</span><b>${(p.opened || []).map((s) => esc(goujiName(v, s))).join(" · ") || esc(t("none"))}</b>`
    + `<span>${esc(t("Tribute (进贡/还贡)"))}</span><b id="gouji-tribute">${tribute || esc(t("none"))}</b>`
    + (tributePoints ? `<span>${esc(t("Tribute points"))}</span><b id="gouji-tribute-points">${tributePoints}</b>` : "")
    + (scores ? `<span>${esc(t("Scores, deal {n}", { n: last.hand }))}</span><b>${scores}</b>` : "") + `</div>`
    + "";
  const rounds = $("#rounds tbody");
  if (rounds) {
    rounds.innerHTML = v.tricks.map((tr, i) => `<tr><td data-label="#">${i + 1}</td><td data-label="${esc(t("Led by"))}">${seatName(v, tr.leader)}</td><td data-label="${esc(t("Sets"))}">${tr.plays.map((pl) => `<span class="byseat"><span class="muted small">${seatName(v, pl.seat)}</span> ${unitsHTML(pl.cards, "sm")}</span>`).join(" ")}</td><td data-label="${esc(t("Passed"))}">${(tr.passes || []).map((s) => seatName(v, s)).join(" ")}</td><td data-label="${esc(t("Set that stood"))}">${tr.winner != null ? seatName(v, tr.winner) : "–"}</td></tr>`).reverse().join("")
      || `<tr><td colspan="5" class="muted">${esc(t("No round finished yet."))}</td></tr>`;
  }
  $("#score").innerHTML += ((p.score_table || []).length ? `<div class="small muted">${esc(t("Sheet's place points"))}: ${p.score_table.map((x) => `${esc(x.place)} ${esc(x.points)}`).join(" · ")}</div>` : "");
}

/* ---------------------------------------------------------------- violation queue */

function describe(v, e) {
  const who = e.seat != null ? seatName(v, e.seat) : esc(t("the table"));
  if (e.type === "play") return tHTML("{who} played {cards}", { who, cards: unitsHTML(e.cards, "sm") });
  if (e.type === "bury") return tHTML("{who} buried {n} cards face down", { who, n: esc(e.count) });
  if (e.type === "bottom_reveal") return tHTML("bottom revealed {cards}", { cards: cardsHTML(e.cards, "sm") });
  return `${esc(e.type)}${e.cards ? " " + cardsHTML(e.cards, "sm") : ""}`;
}

/* A frame with the read cards outlined and labelled (the record's optional ``reads``: boxes in
   the JPEG's pixels, placed here in percent of its natural size once it has loaded), zoomed by
   one tap; a missing frame says so. */
function frameHTML(evidence, reads) {
  if (!evidence) return `<div class="noimg">${esc(t("no evidence frame"))}</div>`;
  const src = `/api/media/${encodeURIComponent(evidence)}`;
  const boxes = (reads || []).filter((r) => Array.isArray(r.box) && r.box.length === 4);
  return `<figure class="shot" tabindex="0" role="button" title="${esc(t("tap to zoom"))}" aria-label="${esc(t("tap to zoom"))}" data-reads="${esc(JSON.stringify(boxes))}">`
    + `<img src="${src}" alt="${esc(t("evidence frame {id}", { id: evidence }))}" data-evidence="${esc(evidence)}">`
    + `<span class="boxes"></span>${boxes.length ? "" : `<figcaption class="small muted">${esc(t("no card outlines recorded for this frame"))}</figcaption>`}</figure>`;
}

/* The outlines of one shot, once its image size is known. */
function placeBoxes(fig) {
  const img = $("img", fig), layer = $(".boxes", fig);
  if (!img || !layer || !img.naturalWidth) return;
  let reads = [];
  try { reads = JSON.parse(fig.dataset.reads || "[]"); } catch (e) { reads = []; }
  const W = img.naturalWidth, H = img.naturalHeight;
  layer.innerHTML = reads.map((r) => {
    const [x, y, w, h] = r.box;
    const name = r.card === "back" ? t("face-down card") : cardName(r.card);
    const score = r.score != null ? ` ${(r.score * 100).toFixed(0)}%` : "";
    const weak = r.score != null && r.score < 0.8 ? " weak" : "";
    /* the record's reads[].history: how each frame from its landing read this card */
    const seen = Array.isArray(r.history) ? r.history.map((v) => `${v[0]}: ${v[1]} ${(v[2] * 100).toFixed(0)}%`).join("\n") : "";
    const title = seen ? ` title="${esc(t("read in each frame") + "\n" + seen)}"` : "";
    return `<span class="readbox${weak}"${title} data-card="${esc(r.card)}" style="left:${(100 * x / W).toFixed(2)}%;top:${(100 * y / H).toFixed(2)}%;width:${(100 * w / W).toFixed(2)}%;height:${(100 * h / H).toFixed(2)}%"><span class="readlabel">${esc(name)}${esc(score)}</span></span>`;
  }).join("");
}

document.addEventListener("load", (e) => {
  const fig = e.target instanceof HTMLImageElement ? e.target.closest("figure.shot") : null;
  if (fig) placeBoxes(fig);
}, true);

/* One tap zooms a frame to the whole screen (outlines and labels with it); a tap closes it. */
function zoom(fig) {
  let box = $("#zoom");
  if (!box) {
    box = document.createElement("div");
    box.id = "zoom";
    box.setAttribute("role", "dialog");
    box.addEventListener("click", () => { box.hidden = true; box.innerHTML = ""; });
    document.body.appendChild(box);
  }
  const copy = fig.cloneNode(true);
  copy.classList.add("zoomed");
  copy.removeAttribute("tabindex");
  box.innerHTML = `<div class="zoom-close small">${esc(t("tap to close"))}</div>`;
  box.appendChild(copy);
  box.hidden = false;
  const img = $("img", copy);
  if (img.complete) placeBoxes(copy);
}

document.addEventListener("click", (e) => {
  const fig = e.target.closest ? e.target.closest("figure.shot") : null;
  if (fig && !fig.classList.contains("zoomed")) zoom(fig);
});
document.addEventListener("keydown", (e) => {
  if ((e.key === "Enter" || e.key === " ") && e.target.matches && e.target.matches("figure.shot")) { e.preventDefault(); zoom(e.target); }
  if (e.key === "Escape" && $("#zoom")) { $("#zoom").hidden = true; $("#zoom").innerHTML = ""; }
});

function proofBlock(v, label, seq, play, evidence, frame) {
  return `<div class="proof" data-seq="${esc(seq)}"><div class="muted small">${esc(label)} · ${esc(t("seq {n}", { n: seq }))}${play ? " · " + esc(t("{s}s", { s: play.t })) : ""}</div>`
    + `<div>${play ? describe(v, play) : "–"}</div>${frame === false ? `<div class="small muted">${esc(t("same frame as above"))}</div>` : frameHTML(evidence, play ? play.reads : null)}</div>`;
}

function trickOf(v, seq) {
  return [...(v.tricks || []), ...(v.current_trick ? [v.current_trick] : [])].find((tr) => tr.plays.some((p) => p.seq === seq));
}

/* The trick the offending play belongs to, its lead first: what the player had to follow,
   with the lead's frame when the lead is another play. */
function ledBlock(v, seq) {
  const trick = trickOf(v, seq);
  if (!trick) return "";
  const lead = trick.plays[0];
  const hot = trick.plays.find((p) => p.seq === seq);
  return `<div class="proof led"><div class="muted small">${esc(t("the trick it was played in"))}</div>`
    + trick.plays.map((p, i) => `<div class="trick-row${p.seq === seq ? " hot" : ""}"><span class="who">${seatName(v, p.seat)}${i === 0 ? ` <span class="chip small">${esc(t("led"))}</span>` : ""}</span>${unitsHTML(p.cards, "sm")}</div>`).join("")
    + (lead && lead.seq !== seq && !(hot && hot.evidence && hot.evidence === lead.evidence) ? `<div class="muted small">${esc(t("the lead · seq {n}", { n: lead.seq }))}</div>${frameHTML(lead.evidence, lead.reads)}` : "") + `</div>`;
}

/* Where it happened beside what proves it. A violation seen at once has one play: its frame
   and its trick. A later proof (a revoke shown by a later play) stands side by side with the
   trick that was led and the offending play; a frame shown once is never shown again. */
function evidenceBlock(v, x) {
  const at = proofBlock(v, t("where it happened"), x.at_seq, x.at_play, x.at_evidence);
  if (x.proven_by_seq === x.at_seq || x.proven_by_seq == null) return `<div class="compare">${at}${ledBlock(v, x.at_seq)}</div>`;
  const same = x.proof_evidence && x.proof_evidence === x.at_evidence;
  return `<div class="compare side-by-side"><div class="col">${ledBlock(v, x.at_seq)}${at}</div>`
    + `<div class="col">${proofBlock(v, t("the play that proves it"), x.proven_by_seq, x.proof_play, x.proof_evidence, same ? false : undefined)}</div></div>`;
}

/* A profile's penalty note is "<English gloss> [<sheet's line> 「<its words>」]": the sheet's own
   words are what a referee quotes; the English gloss stays out of a Chinese page. */
function sheetQuote(note) {
  const quoted = [...note.matchAll(/\[([^\]]*)\]/g)].map((m) => m[1]);
  return quoted.length ? quoted.join(" ") : note.includes("「") ? note.slice(note.indexOf("「")) : note;
}

function citeBlock(x) {
  const rule = RULES && RULES.rules ? RULES.rules[x.rule] : null;
  const quotes = [...(rule ? rule.cites.map(sheetQuote) : []), ...(x.penalty && x.penalty.note && /「/.test(x.penalty.note) ? [sheetQuote(x.penalty.note)] : [])];
  return `<details class="cite"><summary>${esc(t("What the sheet says"))}</summary>`
    + (quotes.length ? quotes.map((q) => `<blockquote lang="zh-CN">${esc(q)}</blockquote>`).join("") : `<p class="muted small">${esc(t("The sheet gives no quote for this rule."))}</p>`)
    + (detailText(x) ? `<p class="small muted">${esc(t("Engine's reason"))}: <span class="reason">${esc(detailText(x))}</span></p>` : "") + `</details>`;
}

/* The judge's reason in the page's language: the record's English, or its Chinese from
   engine.names (the view's detail_zh); a reason with no Chinese yet is left out, not shown raw. */
function detailText(x) {
  return LANG === "en" ? x.detail : x.detail_zh;
}

function drawQueue(v) {
  scoreStrip(v);
  const root = $("#queue");
  preserveInputs(root, () => {
    if (!v.violations || !v.violations.length) { root.innerHTML = `<div class="panel muted">${esc(t("No violation flagged in this match."))}</div>`; return; }
    const rulings = {};
    (v.audit || []).filter((a) => a.type === "ruling").forEach((a) => { rulings[a.ref] = a; });
    const rules = [...new Set(v.violations.map((x) => x.rule))];
    if (queueFilter.rule && !rules.includes(queueFilter.rule)) queueFilter.rule = "";
    const shown = v.violations.filter((x) => (!queueFilter.rule || x.rule === queueFilter.rule)
      && (!queueFilter.state || (x.status || "open") === queueFilter.state));
    const ordered = [...shown].sort((a, b) => (a.hand ?? 0) - (b.hand ?? 0) || ((a.status || "open") === "open" ? 0 : 1) - ((b.status || "open") === "open" ? 0 : 1));
    const option = (value, label, now) => `<option value="${esc(value)}"${value === now ? " selected" : ""}>${esc(label)}</option>`;
    const bar = `<form class="controls queue-filter" id="queue-filter"><label>${esc(t("Rule"))} <select name="rule">${option("", t("all rules"), queueFilter.rule)}${rules.map((r) => option(r, ruleName(r), queueFilter.rule)).join("")}</select></label>`
      + `<label>${esc(t("State"))} <select name="state">${option("", t("all states"), queueFilter.state)}${["open", "upheld", "dismissed"].map((st) => option(st, statusText(st), queueFilter.state)).join("")}</select></label>`
      + `<span class="muted small" id="queue-count">${esc(t("{n} of {total} shown", { n: shown.length, total: v.violations.length }))}</span></form>`;
    let hand = null;
    root.innerHTML = bar + ordered.map((x) => {
      const head = x.hand !== hand ? `<h2 class="queue-hand" data-hand="${esc(x.hand)}">${esc(t("hand {n}", { n: x.hand ?? "–" }))}</h2>` : "";
      hand = x.hand;
      return head + violationHTML(v, x, rulings);
    }).join("");
  });
}

/* The queue's filter (kept across redraws): a rule, a state; decided flags collapse. */
const queueFilter = { rule: "", state: "" };
document.addEventListener("change", (e) => {
  const form = e.target.closest && e.target.closest("#queue-filter");
  if (!form) return;
  queueFilter[e.target.name] = e.target.value;
  if (lastView) drawQueue(lastView);
});

/* At the hall desk: rulings sent that the table has not taken yet (GET .../waiting), by what
   they rule; such a flag says "sent, waiting for the table" instead of offering the buttons. */
let WAITING = {};
async function loadWaiting() {
  try { WAITING = await getJSON(`/api/tables/${encodeURIComponent(TID)}/waiting`); } catch (err) { WAITING = {}; }
}

function waitingHTML(w) {
  return `<div class="hq-waiting small" data-waiting="${esc(w.decision)}"><b class="warn-text">${esc(t("Sent, waiting for the table"))}</b> · ${esc(t("{decision} by {who} at {when}", { decision: statusText(w.decision), who: w.by, when: clock(w.at) }))}${w.note ? ` “${esc(w.note)}”` : ""}</div>`;
}

function violationHTML(v, x, rulings) {
  {
      const status = x.status || "open";
      const r = rulings[x.id];
      const decide = status === "open" && WAITING[x.id] ? waitingHTML(WAITING[x.id])
        : status === "open" && CAN_RULE
        ? `<div class="decide"><textarea data-key="note-${esc(x.id)}" placeholder="${esc(t("Note for the record (why)"))}"></textarea><div class="row"><button class="primary rule-btn" data-act="upheld" data-id="${esc(x.id)}">${esc(t("Uphold"))}</button><button class="rule-btn" data-act="dismissed" data-id="${esc(x.id)}">${esc(t("Dismiss"))}</button></div><div class="small msg"></div></div>`
        : r ? `<div class="muted">${esc(t("{decision} by {who} at {when}", { decision: statusText(r.decision), who: r.by, when: clock(r.at) }))}${r.note ? `<br>“${esc(r.note)}”` : ""}</div>` : status === "open" ? `<div class="muted">${esc(t("Awaiting a referee."))}</div>` : "";
      const how = { immediate: t("seen at once"), retroactive: t("proven by a later play"), audit: t("found at the end of the hand"), referee: t("entered by a referee") }[x.how] || x.how || "";
      const summary = `<summary class="who-rule"><span class="rule" data-rule="${esc(x.rule)}">${esc(ruleName(x.rule))}</span><span>${seatName(v, x.seat)}</span><span class="status ${esc(status)}">${esc(statusText(status))}</span>${x.provisional ? `<span class="status">${esc(t("provisional"))}</span>` : ""}<span class="muted">${esc(t("hand {n}", { n: x.hand }))} · ${esc(how)} · ${esc(t("penalty"))}: ${penaltyText(x.penalty)}</span>${status !== "open" && r ? `<span class="muted small decided-by">${esc(t("{decision} by {who} at {when}", { decision: statusText(r.decision), who: r.by, when: clock(r.at) }))}${r.note ? ` “${esc(r.note)}”` : ""}</span>` : ""}</summary>`;
      /* an open flag is open to read; a decided one folds to its summary line */
      return `<details class="panel viol" data-violation="${esc(x.id)}"${status === "open" ? " open" : ""}>${summary}`
        + `<div class="who-rule">${citeBlock(x)}</div>`
        /* the id that tablescan export --violation takes, to read or copy */
        + `<p class="small vid">${esc(t("Violation id"))} <code data-vid>${esc(x.id)}</code></p>`
        /* dispute report (issue 19) */ + `<p class="small"><a class="report-link" data-report="${esc(x.id)}" target="_blank" href="/api/tables/${encodeURIComponent(v.id)}/export?violation=${encodeURIComponent(x.id)}&format=html">${esc(t("Dispute report (HTML; PDF inside the bundle)"))}</a> · <a href="/api/tables/${encodeURIComponent(v.id)}/export?violation=${encodeURIComponent(x.id)}">${esc(t("bundle (.zip)"))}</a></p>`
        + evidenceBlock(v, x)
        + `<div>${decide}</div></details>`;
  }
}

/* ---------------------------------------------------------------- corrections */

function summaryHTML(v, s) {
  const teams = (s.teams || []).map((tm) => `${esc(tm.names.join(" · "))}: ${esc(t("level {l}", { l: tm.level ?? "–" }))}`).join("<br>");
  return `<div class="kv"><span>${esc(t("Attackers' score"))}</span><b class="pv-points">${s.attacker_points ?? "–"}</b>`
    + `<span>${esc(t("Levels"))}</span><b>${teams}</b>`
    + `<span>${esc(t("Outcome"))}</span><b>${s.outcome ? esc(outcomeText(v, s.outcome)) : "–"}</b>`
    + `<span>${esc(t("Open violations"))}</span><b>${(s.violations || []).map((x) => esc(ruleName(x.rule))).join(", ") || "–"}</b></div>`;
}

function showPreview(v, pv, body) {
  const el = $("#preview");
  el.hidden = false;
  const changes = pv.changes.length
    ? `<ul class="changes">${pv.changes.map((c) => `<li>${esc(c.text)}</li>`).join("")}</ul>`
    : `<p class="muted">${esc(t("This correction changes no score, level, outcome or violation."))}</p>`;
  el.innerHTML = `<h2>${esc(body.undo != null ? t("Undo correction seq {n}?", { n: body.undo }) : t("Correct seq {n}?", { n: body.ref }))}</h2>`
    + `<div class="kv pv-what"><span>${esc(t("Event"))}</span><b>${esc(t("seq {n}", { n: body.undo != null ? (pv.correction || {}).ref : body.ref }))}</b>`
    + `<span>${esc(t("Read now"))}</span><b class="pv-was">${(pv.was || []).length ? cardsHTML(pv.was, "sm") : "–"}</b>`
    + `<span>${esc(t("Would read"))}</span><b class="pv-would">${pv.deleted ? esc(t("(deleted)")) : cardsHTML(pv.would || [], "sm")}</b></div>`
    + `<h3>${esc(t("What changes"))}</h3>${changes}`
    + `<div class="compare"><div class="proof"><div class="muted small">${esc(t("now"))}</div>${summaryHTML(v, pv.before)}</div><div class="proof"><div class="muted small">${esc(t("after the correction"))}</div>${summaryHTML(v, pv.after)}</div></div>`
    + `<textarea id="pv-why" placeholder="${esc(t("Why (kept in the audit log)"))}"></textarea>`
    + `<div class="row"><button class="primary rule-btn" id="pv-confirm">${esc(t("Confirm"))}</button><button class="rule-btn" id="pv-cancel">${esc(t("Cancel"))}</button></div><div class="small msg" id="pv-msg"></div>`;
  el.scrollIntoView({ block: "nearest" });
  $("#pv-cancel").onclick = () => { el.hidden = true; el.innerHTML = ""; };
  $("#pv-confirm").onclick = async () => {
    const why = $("#pv-why").value.trim();
    $("#pv-confirm").disabled = true;
    try {
      if (body.undo != null) await post(`/api/tables/${encodeURIComponent(TID)}/corrections/${body.undo}/undo`, { why: why || t("undone by referee") });
      else await post(`/api/tables/${encodeURIComponent(TID)}/corrections`, { ...body, why: why || t("misread corrected by referee") });
      el.hidden = true; el.innerHTML = "";
    } catch (err) {
      $("#pv-msg").textContent = err.message;
      $("#pv-confirm").disabled = false;
    }
  };
}

async function preview(body) {
  const pv = await post(`/api/tables/${encodeURIComponent(TID)}/corrections/preview`, body);
  showPreview(lastView, pv, body);
}

async function loadHistory() {
  try { HISTORY = (await getJSON(`/api/tables/${encodeURIComponent(TID)}/corrections/history`)).corrections; } catch (err) { HISTORY = []; }
}

/* the node's own reasons are English in the record: Chinese from the view (engine.names), and
   none rather than English when no pattern knows one; a referee's note as typed */
function auditWhy(a) {
  if (a.by === "camera" && LANG !== "en") return a.why_zh || "";
  return a.why || a.note || "";
}

function auditWhat(v, a) {
  if (a.type === "correction") {
    const h = HISTORY.find((x) => x.seq === a.seq);
    const from = h && h.before && h.before.cards ? cardsHTML(h.before.cards, "sm") : "";
    const to = a.cards ? cardsHTML(a.cards, "sm") : "";
    const head = h && h.undoes != null ? esc(t("undid correction seq {n}", { n: h.undoes })) + " · " : "";
    return head + esc(t("corrected seq {n}", { n: a.ref })) + (a.delete ? " " + esc(t("(deleted)")) : from || to ? ` ${from} → ${to}` : "");
  }
  if (a.type === "ruling") return esc(t("{decision}: {what}", { decision: statusText(a.decision), what: String(a.ref).startsWith("seq:") ? t("reading stands, seq {n}", { n: String(a.ref).slice(4) }) : ruleName(String(a.ref).split(":")[1] || a.ref) }));
  return esc(t("{rule} on {seat}", { rule: ruleName(a.rule), seat: (v.seats[a.seat] || {}).name || a.seat }));
}

function drawCorrections(v) {
  scoreStrip(v);
  const prompts = $("#prompts");
  const playBySeq = {};
  (v.plays || []).forEach((p) => { playBySeq[p.seq] = p; });
  prompts.innerHTML = `<h2>${esc(t("Readings that need a referee"))}</h2>` + ((v.needs_referee || []).length
    ? v.needs_referee.map((n) => {
      const play = playBySeq[n.ref];
      return `<div class="prompt flag" data-ref="${n.ref}"><div><b>${esc(t("seq {n}", { n: n.ref }))}</b> · ${play ? seatName(v, play.seat) + " · " : ""}${esc(reasonText(n.reason))} · ${esc(t("choose the cards actually played:"))}</div>`
        + `<div class="prompt-body">${frameHTML(n.evidence || (play ? play.evidence : null), n.reads || (play ? play.reads : null))}<div class="candidates">${(n.candidates || []).map((c) => candidateHTML(n, play, c)).join("")}${CAN_RULE ? `<button class="rule-btn" data-act="stands" data-seq="${n.ref}">${esc(t("Reading stands"))}</button>` : ""}</div></div><div class="small msg"></div></div>`;
    }).join("")
    : `<p class="muted">${esc(t("None pending."))}</p>`);
  const plays = $("#plays tbody");
  preserveInputs(plays, () => {
    plays.innerHTML = (v.plays || []).slice().reverse().map((p) => `<tr data-seq="${p.seq}"><td class="mono" data-label="${esc(t("seq"))}">${p.seq}</td><td data-label="${esc(t("Time"))}">${esc(t("{s}s", { s: p.t }))}</td><td data-label="${esc(t("Seat"))}">${seatName(v, p.seat)}</td><td data-label="${esc(t("Cards read"))}">${unitsHTML(p.cards, "sm")}${p.corrected_by ? ` <span class="status upheld" title="${esc(t("corrected by seq {n}", { n: p.corrected_by.join(", ") }))}">${esc(t("corrected"))}</span>` : ""}</td><td data-label="${esc(t("Confidence"))}">${p.confidence != null ? (p.confidence * 100).toFixed(0) + "%" : "–"}</td>`
      + `<td data-label="${esc(t("Correct to"))}">${CAN_RULE ? `<span class="fix"><input data-key="fix-${p.seq}" placeholder="${esc(t("e.g. {cards}", { cards: p.cards.join(" ") }))}" aria-label="${esc(t("corrected cards for seq {n}", { n: p.seq }))}"><button class="rule-btn" data-act="correct" data-seq="${p.seq}">${esc(t("Correct"))}</button></span><span class="small msg"></span>` : `<span class="muted">${esc(t("view only"))}</span>`}</td></tr>`).join("")
      || `<tr><td colspan="6" class="muted">${esc(t("No play yet in this hand."))}</td></tr>`;
  });
  const sel = $("#v-seat");
  if (sel && sel.options.length !== v.seats.length) {
    sel.innerHTML = v.seats.map((x) => `<option value="${x.index}">${esc(x.name)}</option>`).join("");
  }
  const undone = new Set(HISTORY.filter((h) => h.undoes != null).map((h) => h.undoes));
  $("#audit tbody").innerHTML = (v.audit || []).slice().reverse().map((a) => `<tr data-audit="${a.seq}"><td class="mono" data-label="${esc(t("seq"))}">${a.seq}</td><td data-label="${esc(t("When"))}">${clock(a.at)}</td><td data-label="${esc(t("Who"))}">${esc(a.by)}</td><td data-label="${esc(t("What"))}">${auditWhat(v, a)}</td><td data-label="${esc(t("Why"))}">${esc(auditWhy(a))}</td>`
    + `<td>${a.type === "correction" && CAN_RULE && !a.delete && !undone.has(a.seq) && !(HISTORY.find((h) => h.seq === a.seq) || {}).undoes ? `<button class="rule-btn" data-act="undo" data-seq="${a.seq}">${esc(t("Undo"))}</button>` : undone.has(a.seq) ? `<span class="muted small">${esc(t("undone"))}</span>` : ""}</td></tr>`).join("")
    || `<tr><td colspan="6" class="muted">${esc(t("No referee action yet."))}</td></tr>`;
}

/* A camera candidate as a button: the current read itself means "the reading stands" (never a
   correction of QD to QD); a candidate of no cards means the play is deleted. */
function candidateHTML(n, play, c) {
  const pct = `${(c.confidence * 100).toFixed(0)}%`;
  const cards = c.cards || [];
  if (play && cards.join(" ") === (play.cards || []).join(" "))
    return CAN_RULE ? `<button class="rule-btn" data-act="stands" data-seq="${n.ref}">${cardsHTML(cards, "sm")} ${pct} · ${esc(t("as read: the reading stands"))}</button>` : "";
  if (!cards.length)
    return `<button class="rule-btn" data-act="delete" data-seq="${n.ref}">${esc(t("no cards: delete this play"))} ${pct}</button>`;
  return `<button class="rule-btn" data-act="candidate" data-seq="${n.ref}" data-cards="${esc(cards.join(" "))}">${cardsHTML(cards, "sm")} ${pct}</button>`;
}

function reasonText(reason) {
  return {
    low_confidence: t("the camera is unsure of this reading"),
    occluded: t("the cards were partly hidden"),
    conflict: t("two readings disagree"),
    changed: t("the cards in the area changed"),
    count: t("the number of cards does not fit the lead"),
    face_down: t("a card lies face down"),
    impossible: t("more copies of a card than the decks hold"),
    out_of_turn: t("a seat that was not to play"),
    trick_short: t("the trick closed with cards missing"),
    unknown_banker: t("the banker is not known yet"),
    later_doubt: t("a later read casts doubt on this one"),
  }[reason] || t("unsure");
}

document.addEventListener("click", async (e) => {
  const btn = e.target.closest("button[data-act]");
  if (!btn) return;
  const box = btn.closest(".viol, tr, .prompt, .hq-item");
  const msg = box ? $(".msg", box) : null;
  const table = btn.dataset.table || TID;  /* the hall queue rules any table's rows in place */
  let answer = null;
  btn.disabled = true;
  try {
    if (btn.dataset.act === "upheld" || btn.dataset.act === "dismissed") {
      const note = (box && $(".hq-note", box)) || $(`[data-key="note-${CSS.escape(btn.dataset.id)}"]`);
      answer = await post(`/api/tables/${encodeURIComponent(table)}/rulings`, { violation: btn.dataset.id, decision: btn.dataset.act, note: note ? note.value : "" });
      if (note) note.value = "";  /* the note went into the record: the box starts empty again */
    } else if (btn.dataset.act === "correct") {
      const input = $(`[data-key="fix-${btn.dataset.seq}"]`);
      await preview({ ref: Number(btn.dataset.seq), cards: input.value });
    } else if (btn.dataset.act === "candidate") {
      await preview({ ref: Number(btn.dataset.seq), cards: btn.dataset.cards });
    } else if (btn.dataset.act === "delete") {
      await preview({ ref: Number(btn.dataset.seq), delete: true });
    } else if (btn.dataset.act === "undo") {
      await preview({ undo: Number(btn.dataset.seq) });
    } else if (btn.dataset.act === "stands") {
      answer = await post(`/api/tables/${encodeURIComponent(table)}/rulings`, { ref: `seq:${btn.dataset.seq}`, decision: "upheld", note: t("reading stands") });
    }
    if (msg) { msg.textContent = answer && answer.pending ? t("Sent, waiting for the table.") : ""; msg.classList.remove("bad-text"); }
    if (PAGE === "hall_violations") drawHallQueue();
    if (PAGE === "violations" && answer && answer.pending && lastView) show(lastView);  /* the flag now waits */
  } catch (err) {
    if (msg) { msg.textContent = err.message; msg.classList.add("bad-text"); } else alert(err.message);
  } finally {
    btn.disabled = false;
  }
});

/* An evidence frame that is not stored (or was pruned) says so instead of a broken image. */
document.addEventListener("error", (e) => {
  const img = e.target;
  if (!(img instanceof HTMLImageElement) || !img.dataset.evidence) return;
  const div = document.createElement("div");
  div.className = "noimg";
  div.textContent = t("frame {id} not stored", { id: img.dataset.evidence });
  (img.closest("figure.shot") || img).replaceWith(div);
}, true);

document.addEventListener("submit", async (e) => {
  if (e.target.id !== "enter-violation") return;
  e.preventDefault();
  const f = new FormData(e.target);
  try {
    await post(`/api/tables/${encodeURIComponent(TID)}/violations`, { seat: Number(f.get("seat")), rule: f.get("rule"), note: f.get("note") });
    $("#v-msg").textContent = t("Entered.");
    e.target.note.value = "";
  } catch (err) {
    $("#v-msg").textContent = err.message;
  }
});

/* ---------------------------------------------------------------- hall */

function drawHall(tables) {
  const root = $("#hall");
  if (!tables.length) { root.innerHTML = `<p class="muted">${esc(t("No table connected here has started a match."))}</p>`; return; }
  root.innerHTML = tables.map((tb) => `<a class="tcard" href="/tables/${encodeURIComponent(tb.id)}"><h3><span>${esc(t("Table {id}", { id: tb.id }))}${tb.link && tb.link !== "online" ? ` <span class="status open">${esc(({ offline: t("offline"), late: t("late") })[tb.link] || tb.link)}</span>` : ""}</span><span class="status ${tb.open_violations ? "open" : ""}">${esc(t("{n} open", { n: tb.open_violations }))}</span></h3>`
    + `<div class="muted small">${esc(gameText(tb.game || ""))} · ${esc(tb.profile || "")} · ${esc(t("hand {n}", { n: tb.hand ?? "–" }))} · <span class="match-state">${esc(statusWord(tb))}</span></div>`
    + ((tb.match || {}).over ? `<div class="small match-over"><b>${esc(t("Match over"))}</b> · ${esc(resultText(tb, tb.match.result || {}))}${tb.match.provisional ? ` <span class="status" data-provisional>${esc(t("provisional"))}</span>` : ""}</div>`
      : (tb.match || {}).next_banker != null && tb.status !== "playing" ? `<div class="small">${esc(t("next banker {name}", { name: (tb.players || [])[tb.match.next_banker] || tb.match.next_banker }))}</div>` : "")
    + (tb.clock ? `<div class="small clock-row">${clockHTML(tb.clock)}</div>` : "")
    + gameView(tb).hall(tb)
    + witnessView(tb.witness, tb.id)
    + `${tb.needs_referee ? `<div class="small"><b class="warn-text">${esc(t("{n} to check", { n: tb.needs_referee }))}</b></div>` : ""}`
    /* messages the hall desk refused and kept aside (hall/intake.py): count, latest problem */
    + `${tb.poison ? `<div class="small poison" data-poison="${esc(tb.poison)}" title="${esc((tb.poison_latest || []).join("\n"))}"><b class="warn-text">${esc(t("{n} messages set aside by the desk", { n: tb.poison }))}</b>${(tb.poison_latest || []).length ? ` · <span class="muted">${esc(tb.poison_latest[0])}</span>` : ""}</div>` : ""}</a>`).join("");
  root.querySelectorAll("[data-confirm-key]").forEach((b) => b.addEventListener("click", async (ev) => {
    ev.preventDefault(); ev.stopPropagation();  // inside the card's link
    const id = window.prompt(t("Key id on the table's set-up sheet (16 hex)"));
    if (!id) return;
    try {
      await post(`/api/hall/witness/${encodeURIComponent(b.dataset.confirmKey)}/confirm`, { key_id: id.trim() });
      b.textContent = t("confirmed");
    } catch (err) { window.alert(err.message); }
  }));
  tickClocks();
}

/* The desk's witness of the table's signed head (issue 27): the pinned key's fingerprint (a
   referee compares it with the table's set-up sheet when it was pinned on first sight), the
   last row witnessed, and any alarm (a head that cut, rewrote or changed key) loud in red. */
function witnessView(w, table) {
  if (!w || !w.key_id) return "";
  const first = w.enrolled_by === "first seen" ? ` <button type="button" class="status" data-confirm-key="${esc(table)}">${esc(t("pinned on first sight: confirm"))}</button>` : "";
  const alarms = (w.alarms || []).map((a) => `<div class="small witness-alarm" data-witness-alarm><b class="warn-text">${esc(t("WITNESS ALARM"))}</b> ${esc(a)}</div>`).join("");
  return `<div class="small muted" data-witness>${esc(t("node key {id}", { id: w.key_id }))}${first} · ${esc(t("witnessed to row {n}", { n: w.witnessed_rows ?? "–" }))}</div>${alarms}`;
}

/* ---------------------------------------------------------------- hall violation queue */

/* One queue across the hall (GET /api/violations, newest first): each open flag or camera
   read to check with its table (marked when the desk hears it offline or late); the referee
   rules it here (hallQueueDecide) or on the table's own queue, linked. Redrawn on every hall change, and every 5 s besides, so
   a table going late shows without a change. */
function hallQueueItem(x) {
  const link = x.link && x.link !== "online" ? ` <span class="status open" data-link="${esc(x.link)}">${esc(({ offline: t("offline"), late: t("late") })[x.link] || x.link)}</span>` : "";
  const who = x.seat_name != null ? esc(x.seat_name) : x.seat != null ? esc(t("seat {n}", { n: x.seat })) : esc(t("the table"));
  const what = x.kind === "needs_referee"
    ? `<span class="rule warn-text">${esc(t("Camera read to check"))}</span><span>${who}</span><span class="muted">${esc(reasonText(x.reason))} · ${esc(t("seq {n}", { n: x.ref }))}</span>`
    : `<span class="rule" data-rule="${esc(x.rule)}">${esc(ruleName(x.rule))}</span><span>${who}</span><span class="status open">${esc(t("open"))}</span>${x.provisional ? `<span class="status">${esc(t("provisional"))}</span>` : ""}<span class="muted">${esc(t("hand {n}", { n: x.hand ?? "–" }))} · ${esc(t("penalty"))}: ${penaltyText(x.penalty)}</span>`;
  return `<section class="panel hq-item" data-table="${esc(x.table)}" data-kind="${esc(x.kind)}" data-id="${esc(x.id)}" style="display:flex;flex-wrap:wrap;gap:6px 12px;align-items:baseline;overflow-wrap:anywhere">`
    + `<b class="hq-table">${esc(t("Table {id}", { id: x.table }))}${link}</b>${what}<span class="muted small">${clock(x.at)}</span>`
    + `<a class="hq-rule" href="${esc(x.url)}">${esc(t("Rule it in the table's queue"))} →</a>${hallQueueDecide(x)}</section>`;
}

/* Ruled in place (uphold / dismiss with a note; a camera read: the reading stands). A ruling
   the desk sent that the table has not taken yet shows as "sent, waiting for the table", and
   the buttons wait with it (the server refuses a second ruling meanwhile). */
function hallQueueDecide(x) {
  if (x.waiting) return `<div class="hq-decide" style="flex-basis:100%">${waitingHTML(x.waiting)}</div>`;
  if (!CAN_RULE) return "";
  const key = `note-${x.table}:${x.id}`;
  const buttons = x.kind === "needs_referee"
    ? `<button class="rule-btn" data-act="stands" data-table="${esc(x.table)}" data-seq="${esc(x.ref)}">${esc(t("Reading stands"))}</button>`
    : `<textarea class="hq-note" data-key="${esc(key)}" placeholder="${esc(t("Note for the record (why)"))}"></textarea><div class="row"><button class="primary rule-btn" data-act="upheld" data-table="${esc(x.table)}" data-id="${esc(x.id)}">${esc(t("Uphold"))}</button><button class="rule-btn" data-act="dismissed" data-table="${esc(x.table)}" data-id="${esc(x.id)}">${esc(t("Dismiss"))}</button></div>`;
  return `<div class="decide hq-decide" style="flex-basis:100%">${buttons}<div class="small msg"></div></div>`;
}

let hallQueueBusy = false, hallQueueAgain = false;  // one fetch at a time; a change meanwhile fetches once more
async function drawHallQueue() {
  if (hallQueueBusy) { hallQueueAgain = true; return; }
  hallQueueBusy = true;
  hallQueueAgain = false;
  try {
    const items = await getJSON("/api/violations");
    const root = $("#hall-queue");
    preserveInputs(root, () => {  /* a note being typed survives the redraw */
      root.innerHTML = items.length ? items.map(hallQueueItem).join("") : `<div class="panel muted">${esc(t("Nothing open at any table."))}</div>`;
    });
    document.body.dataset.items = String(items.length);
  } catch (err) {
    setLive(false);
  } finally {
    hallQueueBusy = false;
    if (hallQueueAgain) drawHallQueue();
  }
}

/* ---------------------------------------------------------------- health */

function fmtBytes(n) {
  const u = ["B", "KB", "MB", "GB", "TB"]; let i = 0;
  while (n >= 1024 && i < u.length - 1) { n /= 1024; i++; }
  return `${n.toFixed(1)} ${u[i]}`;
}

async function drawHealth() {
  try {
    const h = await getJSON("/api/health");
    setLive(true);
    const m = (k, v, cls) => `<div class="metric ${cls || ""}"><div class="k">${esc(k)}</div><div class="v">${v}</div></div>`;
    const out = [m(t("disk free"), fmtBytes(h.disk_free_bytes), h.disk_low || h.disk_free_bytes < 1e9 ? "bad" : "ok")];
    if (h.disk_low) out.push(`<div class="metric wide bad" id="disk-low"><div class="k">${esc(t("DISK LOW"))}</div><div class="v small">${esc(t("under the {n} asked for: evidence is not deleted for space it did not take; free space or move the data folder", { n: fmtBytes(h.disk_min_free_bytes || 0) }))}</div></div>`);
    for (const tb of h.tables) {
      const n = tb.node || {};
      const age = n.updated ? Date.now() / 1000 - n.updated : null;
      const serial = n.serial || {};
      out.push(`<div class="metric wide"><div class="k">${esc(t("Table {id}", { id: tb.id }))} · ${esc(t("seq {n}", { n: tb.seq }))}${n.source ? ` · ${esc(n.source)}` : ""}</div></div>`);
      out.push(m(t("frames / s"), n.fps != null ? Number(n.fps).toFixed(1) : "–"));
      out.push(m(t("model ms"), n.model_ms != null ? Number(n.model_ms).toFixed(1) : "–"));
      out.push(m(t("queue depth"), n.queue ?? "–", n.queue > 10 ? "bad" : ""));
      out.push(cameraMetric(m, n.camera));
      out.push(m(t("frames dropped / missed"), n.camera ? `${n.camera.dropped} / ${n.camera.missed}` : "–"));
      out.push(m(t("serial link"), serial.state ? esc(serial.state) : "–", serial.state === "up" ? "ok" : serial.state ? "bad" : ""));
      out.push(m(t("node report age"), age != null ? esc(t("{n} s", { n: age.toFixed(0) })) : esc(t("no report")), age == null || age > 10 ? "bad" : "ok"));
      out.push(m(t("record errors"), tb.errors, tb.errors ? "bad" : "ok"));
    }
    out.push(m(t("refused requests"), Object.values(h.counters).reduce((a, b) => a + b, 0)));
    $("#health").innerHTML = out.join("");
  } catch (err) {
    setLive(false);
  }
}

function cameraText(cam) {
  if (!cam) return t("no camera report");
  if (cam.camera === "lost") return t("camera lost ({s} s)", { s: Number(cam.lost_for_s).toFixed(0) });
  return cam.reconnects ? t("camera ok (back {n}×)", { n: cam.reconnects }) : t("camera ok");
}

function cameraMetric(m, cam) {
  return m(t("camera"), esc(cameraText(cam)), !cam ? "" : cam.camera === "lost" ? "bad" : "ok");
}

/* The table page's camera line: "camera lost" at once, from the node's health report. */
async function drawCameraState() {
  try {
    const h = await getJSON("/api/health");
    const tb = (h.tables || []).find((x) => x.id === TID);
    const cam = tb && tb.node ? tb.node.camera : null;
    const el = $("#camera-state");
    const lost = !!cam && cam.camera === "lost";
    el.hidden = !lost;
    el.textContent = lost ? `⚠ ${cameraText(cam)} · ${t("the node keeps every event and retries")}` : "";
  } catch (err) { /* the stream's own indicator shows a lost dashboard link */ }
}

/* ---------------------------------------------------------------- calibration */

function solveHomography(src, dst) {
  const A = [], b = [];
  for (let i = 0; i < 4; i++) {
    const [x, y] = src[i], [u, v] = dst[i];
    A.push([x, y, 1, 0, 0, 0, -u * x, -u * y]); b.push(u);
    A.push([0, 0, 0, x, y, 1, -v * x, -v * y]); b.push(v);
  }
  for (let c = 0; c < 8; c++) {
    let p = c;
    for (let r = c + 1; r < 8; r++) if (Math.abs(A[r][c]) > Math.abs(A[p][c])) p = r;
    [A[c], A[p]] = [A[p], A[c]]; [b[c], b[p]] = [b[p], b[c]];
    for (let r = 0; r < 8; r++) {
      if (r === c) continue;
      const f = A[r][c] / A[c][c];
      for (let k = c; k < 8; k++) A[r][k] -= f * A[c][k];
      b[r] -= f * b[c];
    }
  }
  const h = b.map((x, i) => x / A[i][i]);
  return (x, y) => { const w = h[6] * x + h[7] * y + 1; return [(h[0] * x + h[1] * y + h[2]) / w, (h[3] * x + h[4] * y + h[5]) / w]; };
}

function calibration() {
  const layout = JSON.parse($("#layout").textContent);
  const saved = JSON.parse($("#saved").textContent);
  const markers = JSON.parse($("#markers").textContent);
  const img = $("#frame"), svg = $("#overlay");
  let pts = null;
  const byId = Object.fromEntries(markers.found.map((k) => [k.id, k]));
  const atCorners = markers.want.map((id) => byId[id]);
  const missing = markers.want.filter((id) => !byId[id]);
  $("#markers-msg").textContent = !markers.found.length ? t("No marker found in the live frame.")
    : missing.length ? t("Found markers {found}; missing {missing}.", { found: markers.found.map((k) => k.id).join(", "), missing: missing.join(", ") })
    : t("All four corner markers found.");
  $("#markers-msg").className = `small ${missing.length ? "warn-text" : ""}`;
  $("#layout-msg").textContent = layout.from_config ? t("Seat areas from the table's config.") : t("Seat areas: a default layout (the table node has not shared its config yet).");
  if (!missing.length) {
    $("#use-markers").hidden = false;
    $("#use-markers").addEventListener("click", () => { pts = atCorners.map((k) => k.centre.slice()); draw(); });
  }
  const [W, H] = layout.table_size;
  const names = [t("top-left"), t("top-right"), t("bottom-right"), t("bottom-left")];
  function draw() {
    const w = img.naturalWidth || 1280, h = img.naturalHeight || 720;
    svg.setAttribute("viewBox", `0 0 ${w} ${h}`);
    if (!pts) pts = saved && saved.points ? saved.points : [[w * 0.15, h * 0.1], [w * 0.85, h * 0.1], [w * 0.85, h * 0.9], [w * 0.15, h * 0.9]];
    const map = solveHomography([[0, 0], [W, 0], [W, H], [0, H]], pts);
    const poly = (p) => p.map(([x, y]) => map(x, y).map((n) => n.toFixed(1)).join(",")).join(" ");
    const colours = ["#58a6ff", "#e3b341", "#7ee787", "#ff7b72", "#d2a8ff", "#79c0ff"];
    svg.innerHTML = `<polygon points="${poly([[0, 0], [W, 0], [W, H], [0, H]])}" fill="none" stroke="#fff" stroke-width="3" stroke-dasharray="10 6"/>`
      + layout.areas.map((a) => { const c = a.kind === "centre" ? "#ffffff" : colours[(a.seat || 0) % colours.length]; const [cx, cy] = map(...a.polygon.reduce((s, p) => [s[0] + p[0] / a.polygon.length, s[1] + p[1] / a.polygon.length], [0, 0])); return `<polygon points="${poly(a.polygon)}" fill="${c}" fill-opacity="0.18" stroke="${c}" stroke-width="2"/><text x="${cx}" y="${cy}" fill="${c}" font-size="${Math.max(14, w / 60)}" text-anchor="middle">${esc(areaName(a))}</text>`; }).join("")
      + markers.found.map((k) => `<polygon class="marker" points="${k.corners.map((p) => p.join(",")).join(" ")}" fill="none" stroke="#3fb950" stroke-width="3"/><text x="${k.centre[0]}" y="${k.centre[1]}" fill="#3fb950" font-size="${Math.max(14, w / 60)}" text-anchor="middle">${k.id}</text>`).join("")
      + pts.map(([x, y], i) => `<circle class="handle" data-i="${i}" cx="${x}" cy="${y}" r="${Math.max(10, w / 90)}" fill="#f85149" stroke="#fff" stroke-width="3"/>`).join("");
    $("#corners").innerHTML = pts.map((p, i) => `<li>${esc(names[i])}: ${p[0].toFixed(0)}, ${p[1].toFixed(0)}</li>`).join("");
  }
  let dragging = null;
  svg.addEventListener("pointerdown", (e) => { const c = e.target.closest(".handle"); if (c) { dragging = Number(c.dataset.i); svg.setPointerCapture(e.pointerId); } });
  svg.addEventListener("pointermove", (e) => {
    if (dragging === null) return;
    const r = svg.getBoundingClientRect();
    const w = img.naturalWidth || 1280, h = img.naturalHeight || 720;
    pts[dragging] = [Math.max(0, Math.min(w, ((e.clientX - r.left) / r.width) * w)), Math.max(0, Math.min(h, ((e.clientY - r.top) / r.height) * h))];
    draw();
  });
  svg.addEventListener("pointerup", () => { dragging = null; });
  $("#save").addEventListener("click", async () => {
    try { await post(`/api/tables/${encodeURIComponent(TID)}/calibration`, { points: pts }); $("#calib-msg").textContent = t("Saved at {time}.", { time: clock(Date.now() / 1000) }); }
    catch (err) { $("#calib-msg").textContent = err.message; }
  });
  img.addEventListener("load", draw);
  img.addEventListener("error", () => { $("#calib-msg").textContent = t("No live frame from the table node yet."); draw(); });
  if (img.complete) draw();
  setLive(true);
}

function areaName(a) {
  if (a.kind === "centre") return t("centre");
  if (a.seat != null) return t("seat {n}", { n: a.seat });
  return a.name;
}

/* ---------------------------------------------------------------- boot */

const DRAW = { table: drawTable, violations: drawQueue, corrections: drawCorrections };

let queue = Promise.resolve();  // views are drawn one after another, in the order they came

function show(v) {
  lastView = v;  // at once: the next delta applies to it
  queue = queue.then(async () => {
    if (PAGE === "corrections") await loadHistory();
    if (PAGE === "violations") await loadWaiting();
    navBadge(v);
    DRAW[PAGE](v);
    seenSeq = v.seq;
    document.body.dataset.seq = v.seq;
  });
}

if (DRAW[PAGE] && TID) {
  const needsRules = PAGE === "violations";
  const ready = Promise.all([
    needsRules ? getJSON(`/api/tables/${encodeURIComponent(TID)}/rules`).then((r) => { RULES = r; }).catch(() => {}) : null,
  ]);
  queue = ready;
  openStream(`/api/tables/${encodeURIComponent(TID)}/stream`, {
    state: show,
    /* a change: the keys it sets, the items it appends (dashboard/README.md) */
    delta: (d) => {
      if (!lastView || d.base !== lastView.version) return;  // the server sends a state then
      const v = Object.assign({}, lastView, d.set || {});
      for (const [k, items] of Object.entries(d.append || {})) v[k] = (v[k] || []).concat(items);
      v.version = d.version;
      show(v);
    },
  });
}
if (PAGE === "table" && TID) {
  drawCameraState();
  setInterval(drawCameraState, 1000);
}
if (PAGE === "hall") {
  openStream("/api/hall/stream", { hall: drawHall });
} else if (PAGE === "hall_violations") {
  openStream("/api/hall/stream", { hall: drawHallQueue });
  drawHallQueue();
  setInterval(drawHallQueue, 5000);
} else if (PAGE === "health") {
  drawHealth();
  setInterval(drawHealth, 2000);
} else if (PAGE === "calibration") {
  calibration();
}

/* The tournament desk and its results page are server-rendered (no stream): while a round
   waits for results they reload every 15 s, never while a referee is typing a result or has a
   form open. */
if (PAGE === "tournament" || PAGE === "results") {
  const live = $("#live");
  if (live) live.hidden = true;
  if ($(".pairing .status.open, .pairing .status.provisional, .result[data-status=open], .result[data-status=provisional]")) {
    setInterval(() => {
      const el = document.activeElement;
      const typing = el && /^(INPUT|TEXTAREA|SELECT)$/.test(el.tagName);
      if (!typing && !$("details[open]")) location.reload();
    }, 15000);
  }
}
