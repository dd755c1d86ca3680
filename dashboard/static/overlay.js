/* Broadcast overlay: one delayed SSE stream; draws the widgets the head referee chose for this
   link, in the layout chosen with it. Strings come from the page's catalog (Chinese unless the
   URL says &lang=en). Anything that goes wrong leaves the page empty: nothing on air. */
"use strict";
(function () {
  const body = document.body;
  const tid = body.dataset.table;
  const widgets = (body.dataset.widgets || "").split(",");
  const params = new URLSearchParams(location.search);
  const root = document.getElementById("ov");
  const q = `token=${encodeURIComponent(params.get("token") || "")}&delay=${encodeURIComponent(body.dataset.delay)}`
    + (params.get("lang") ? `&lang=${encodeURIComponent(params.get("lang"))}` : "");

  /* each game's own overlay parts, by the registry's view key (engine.games.Game.view, as
     app.js's GAME_VIEWS): Gouji scores by places, plays rounds of sets and shows the cards
     left; a game without an entry is drawn with tricks, banker and levels (80-points) */
  const VIEWS = { gouji: { score: scoreGouji, result: goujiResult, rounds: true } };
  function own(v) { return VIEWS[v.view] || {}; }

  function name(v, seat) { return esc((v.seats[seat] || {}).name || t("seat {n}", { n: seat })); }

  function placeName(i, n) {
    // Gouji's own names: 头科, 二科 … 二落, 大落
    if (i === 0) return t("first out");
    if (i === n - 1) return t("last out");
    if (i === n - 2 && n > 3) return t("second-last out");
    return t("place {n}", { n: i + 1 });
  }

  function scoreTractor(v) {
    const teams = v.teams.map((tm) => `<div class="team${tm.banker_side ? " bank" : ""}"><span class="k">${esc(tm.names.join(" · "))}${tm.banker_side ? " · " + esc(t("banker")) : ""}</span><span>${esc(t("level {l}", { l: tm.level ?? "–" }))}</span></div>`).join("");
    const pts = v.attacker_points == null ? "–" : esc(v.attacker_points);
    return `<div class="w score" data-widget="score">${clockRow(v)}${teams}<div class="team"><span class="k">${esc(t("Attackers' score"))}</span><span class="pts">${pts}</span></div><div class="team"><span class="k">${esc(t("hand {n}", { n: v.hand ?? "–" }))} · ${esc(t("trump"))}</span><span class="trump">${trumpHTML(v.trump)}</span></div>${matchOver(v)}</div>`;
  }

  function scoreGouji(v) {
    const n = v.seats.length;
    const order = (v.places || []).map((s, i) => `<span data-place="${i + 1}">${esc(placeName(i, n))} ${name(v, s)}</span>`).join(" · ");
    const leader = v.current_trick && v.current_trick.plays.length ? v.current_trick.plays[v.current_trick.plays.length - 1].seat : null;
    const holds = leader == null ? "" : `<div class="team"><span class="k">${esc(t("Round held by"))}</span><span>${name(v, leader)}</span></div>`;
    const p = v.panel || {};
    const burns = (p.burns || []).length ? `<div class="team" data-gouji="burns"><span class="k">${esc(t("{n} burn(s)", { n: p.burns.length }))}</span></div>` : "";
    const paid = (p.tribute || []).map((x) => esc(x.back
      ? t("{from} returns {n} to {to} (还贡)", { from: (v.seats[x.from] || {}).name ?? x.from, to: (v.seats[x.to] || {}).name ?? x.to, n: x.count ?? 1 })
      : t("{from} pays {n} to {to} (进贡)", { from: (v.seats[x.from] || {}).name ?? x.from, to: (v.seats[x.to] || {}).name ?? x.to, n: x.count ?? 1 }))).join(" · ");
    const tribute = paid ? `<div class="team" data-gouji="tribute"><span>${paid}</span></div>` : "";
    return `<div class="w score gj" data-widget="score">${clockRow(v)}<div class="team"><span class="k">${esc(t("Gouji"))} · ${esc(t("hand {n}", { n: v.hand ?? "–" }))}</span><span>${esc(t("Finishing order"))}</span></div><div class="team"><span class="k">${esc(t("out so far"))}</span><span>${order || "–"}</span></div>${holds}${burns}${tribute}${matchOver(v)}</div>`;
  }

  // "match over" once the record holds a match_end (both games); Gouji adds its result in its
  // own terms (deals won and points: Gouji has no levels)
  function matchOver(v) {
    if (!(v.match && v.match.over)) return "";
    const res = v.match.result || {};
    const side = (i) => ((v.teams || [])[i] || { names: [String(i)] }).names.join(" · ");
    const words = own(v).result && res.teams ? own(v).result(res, side) : "";
    const open = v.match.provisional ? ` <span class="k" data-provisional>${esc(t("provisional"))}</span>` : "";  /* a read still awaits a referee */
    return `<div class="team match-over"><span class="k">${esc(t("Match over"))}</span>${words}${open}</div>`;
  }

  function goujiResult(res, side) {
    return `<span>${esc(t("{who} after {n} deal(s); deals won {won}, points {points}", {
      who: res.winner != null ? t("{side} won", { side: side(res.winner) }) : t("tied"),
      n: res.hands ?? "–",
      won: (res.deals_won || []).join(" : ") || "–",
      points: res.teams.join(" : "),
    }))}</span>`;
  }

  // the match clock, as late as the rest of the page (the link's delay)
  function clockRow(v) {
    return v.clock ? `<div class="team clock-row"><span class="k">${esc(t("Match clock"))}</span>${clockHTML(v.clock, Number(body.dataset.delay) || 0)}</div>` : "";
  }

  function players(v) {
    const rounds = own(v).rounds;
    const places = v.places || [];
    const rows = v.seats.map((s, i) => {
      const out = places.indexOf(i);
      const extra = rounds
        ? (out >= 0 ? `<span class="badge">${esc(placeName(out, v.seats.length))}</span>` : s.cards_left != null ? `<span class="k">${esc(t("{n} cards", { n: s.cards_left }))}</span>` : "")
        : (s.banker ? `<span class="badge">${esc(t("banker"))}</span>` : "");
      const team = s.team != null ? `<span class="badge t${s.team % 3}">${esc(t("team {n}", { n: s.team + 1 }))}</span>` : "";
      return `<div class="pl${out >= 0 ? " out" : ""}" data-seat="${i}"><span>${name(v, i)}</span>${team}${extra}</div>`;
    }).join("");
    return `<div class="w" data-widget="players"><div class="k">${esc(t("Players"))}</div><div class="players">${rows}</div></div>`;
  }

  function trickBlock(v, trick, label) {
    if (!trick || !trick.plays.length) return "";
    const bySeat = {};
    trick.plays.forEach((p) => { (bySeat[p.seat] = bySeat[p.seat] || []).push(p); });
    const n = v.seats.length;
    const start = trick.leader ?? trick.plays[0].seat;
    const seats = [];
    for (let k = 0; k < n; k++) seats.push((start + k) % n);
    const rounds = own(v).rounds;
    const cells = seats.filter((s) => bySeat[s] || (label === "trick" && !rounds)).map((s) => {
      const last = bySeat[s] ? bySeat[s][bySeat[s].length - 1] : null;
      const cards = last ? cardsHTML(last.cards) : `<span class="k">…</span>`;
      return `<div class="p${trick.winner === s ? " win" : ""}${last ? "" : " wait"}" data-seat="${s}"><span class="nm">${name(v, s)}</span>${cards}</div>`;
    }).join("");
    const head = label === "trick" ? esc(rounds ? t("Current round") : t("Current trick"))
      : esc(rounds ? t("Last round") : t("Last trick")) + (trick.winner != null ? " · " + (rounds ? tHTML("won by {name}", { name: name(v, trick.winner) }) : tHTML("won by {name} · {n} points", { name: name(v, trick.winner), n: esc(trick.points ?? 0) })) : "");
    return `<div class="w${rounds ? " gj" : ""}" data-widget="${label}"><div class="k">${head}</div><div class="trick">${cells}</div></div>`;
  }

  function calls(v) {
    // only upheld, firm violations reach this page (view.public_view), and only after the delay
    const list = (v.violations || []).slice(-2);
    if (!list.length) return "";
    return `<div class="w calls" data-widget="calls">${list.map((x) => `<div class="call"><span class="k">${esc(t("Referee: violation upheld"))}</span> ${esc(ruleName(x.rule))} · ${name(v, x.seat)}</div>`).join("")}</div>`;
  }

  function render(v) {
    if (!v || !v.seats) { root.innerHTML = ""; return; }
    const out = [];
    if (widgets.includes("calls")) out.push(calls(v));
    if (widgets.includes("score")) out.push(own(v).score ? own(v).score(v) : scoreTractor(v));
    if (widgets.includes("players")) out.push(players(v));
    if (widgets.includes("trick")) out.push(trickBlock(v, v.current_trick, "trick"));
    if (widgets.includes("last")) out.push(trickBlock(v, v.last_trick, "last"));
    // the bottom only once it is turned up
    if (widgets.includes("bottom") && v.bottom && v.bottom.cards && v.bottom.cards.length) {
      out.push(`<div class="w" data-widget="bottom"><div class="k">${esc(t("Bottom"))}</div>${cardsHTML(v.bottom.cards)}</div>`);
    }
    root.innerHTML = out.join("");
    root.dataset.seq = v.seq;
    tickClocks();
  }

  function safeRender(v) {
    try { render(v); } catch (e) { root.innerHTML = ""; }
  }

  // the operator panel's undelayed preview names its own (login-only) stream
  const src = body.dataset.stream || `/overlay/${encodeURIComponent(tid)}/stream?${q}`;
  let wait = 5000; // after a refusal (503 when the node's streams are full): 5 s, doubling to 60 s
  let revoked = false;
  function connect() {
    const es = new EventSource(src);
    es.addEventListener("state", (m) => {
      wait = 5000;
      let v = null;
      try { v = JSON.parse(m.data); } catch (e) { v = null; }
      safeRender(v);
      document.dispatchEvent(new CustomEvent("overlay:state", { detail: v })); // overlay-extras.js
    });
    // the head referee revoked this link: go blank and stop asking
    es.addEventListener("revoked", () => { revoked = true; es.close(); safeRender(null); });
    // refused or gone: nothing on air, and ask again later (a browser source is left running
    // for hours; it must come back by itself once the node has a stream free)
    es.addEventListener("error", () => {
      if (es.readyState !== EventSource.CLOSED || revoked) return;
      safeRender(null);
      setTimeout(connect, wait);
      wait = Math.min(wait * 2, 60000);
    });
  }
  connect();
})();
