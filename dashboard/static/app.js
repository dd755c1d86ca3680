/* tablescan referee console. One SSE stream per page; every view is drawn from the engine's
   state sent by the server (this file judges nothing). */
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

function setLive(on) {
  const el = $("#live");
  if (!el) return;
  el.textContent = on ? "● live" : "● reconnecting…";
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

function seatName(v, seat) {
  const s = (v.seats || [])[seat];
  return s ? esc(s.name) : `seat ${esc(seat)}`;
}

function clock(epoch) {
  return epoch ? new Date(epoch * 1000).toLocaleTimeString() : "–";
}

function penaltyText(p) {
  if (!p) return "";
  const bits = [];
  if (p.points) bits.push(`${p.points} pts`);
  if (p.levels) bits.push(`${p.levels} level${p.levels > 1 ? "s" : ""}`);
  if (p.lose_bank) bits.push("loses the bank");
  if (p.note) bits.push(esc(p.note));
  return bits.join(" · ") || "no penalty";
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

function scoreStrip(v) {
  const el = $("#score-strip");
  if (!el || !v.teams) return;
  el.innerHTML = v.teams.map((t) => `<span class="chip">${esc(t.names.join(" · "))}${t.banker_side ? " (banker)" : ""}: level ${esc(t.level)} · tricks ${t.trick_points} pts</span>`).join("")
    + `<span class="chip" id="attacker-points">attackers (engine) <b>${v.attacker_points ?? 0}</b></span>`
    + `<span class="chip">hand ${v.hand ?? "–"} · seq ${v.seq}</span>`;
}

/* ---------------------------------------------------------------- table view */

function seatPositions(n) {
  return Array.from({ length: n }, (_, i) => {
    const a = ((90 - (i * 360) / n) * Math.PI) / 180;
    return { left: 50 + 40 * Math.cos(a), top: 50 + 37 * Math.sin(a) };
  });
}

function drawTable(v) {
  const felt = $("#felt");
  $("#headline").innerHTML = v.seats
    ? `<span class="big">Table ${esc(v.id)}</span><span class="chip">hand ${v.hand ?? "–"}</span><span class="chip">level ${esc(v.level ?? "–")}</span>`
      + (v.game === "gouji" ? "" : `<span class="chip trump">trump ${esc((v.trump || {}).level || "")} ${suitHTML((v.trump || {}).suit)}</span>`
      + `<span class="chip">banker ${v.banker != null ? seatName(v, v.banker) : "–"}</span>`)
      + `<span class="chip">${esc(v.game)} · ${esc(v.profile)}</span><span class="muted">seq ${v.seq} · ${esc(v.status)}</span>`
    : `<span class="big">Table ${esc(v.id)}</span><span class="muted">${esc(v.status)}</span>`;
  if (!v.seats) return;
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
      d.style.transform = "translate(-50%, -50%)";
      felt.appendChild(d);
    });
    seats = $$(".seat", felt);
  }
  const trick = v.current_trick || (v.tricks.length ? v.tricks[v.tricks.length - 1] : null);
  const live = !!v.current_trick;
  const bySeat = {};
  if (trick) trick.plays.forEach((p) => { bySeat[p.seat] = p; });
  const nextSeat = v.status === "playing" ? v.next_seat : null;
  v.seats.forEach((s, i) => {
    const p = bySeat[i];
    const won = !live && trick && trick.winner === i;
    seats[i].classList.toggle("turn", nextSeat === i);
    seats[i].innerHTML = `<div class="name team${s.team}">${esc(s.name)}${s.banker ? '<span class="banker">★ banker</span>' : ""}</div>`
      + `<div class="meta">${s.time_per_play != null ? `${s.time_per_play}s / play` : "&nbsp;"}${s.cards_left != null ? ` · ${s.cards_left} left` : ""}${won ? " · <b>won the trick</b>" : ""}</div>`
      + `<div class="played" style="opacity:${live ? 1 : 0.55}" data-seq="${p ? p.seq : ""}">${p ? cardsHTML(p.cards, "lg") : ""}</div>`;
    if (p && p.seq > seenSeq && live) $$(".card", seats[i]).forEach((c) => c.classList.add("fresh"));
  });
  const b = v.bottom || {};
  if (v.game === "gouji") { drawGoujiSide(v, live, trick); } else {
  $("#centre").innerHTML = `<div class="label">${live ? `trick ${v.tricks.length + 1}` : trick ? `trick ${v.tricks.length} done` : "waiting"}</div>`
    + `<div class="num">${v.attacker_points ?? 0}</div><div class="label">attacker points</div>`
    + `<div style="margin-top:10px">${b.cards ? cardsHTML(b.cards, "sm") : b.count ? backsHTML(Math.min(b.count, 8), "sm") : ""}</div>`
    + `<div class="label">${b.cards ? "bottom revealed" : b.count ? `bottom: ${b.count} face down` : ""}</div>`;
  $("#score").innerHTML = `<h2>Score</h2><div class="scorebox">${v.teams.map((t) => `<div class="side-card${t.banker_side ? " bank" : ""}"><div class="muted small">${t.banker_side ? "banker side" : "attackers"}</div><div>${esc(t.names.join(" · "))}</div><div class="pts">${t.trick_points}</div><div class="muted small">trick points · level ${esc(t.level)}</div></div>`).join("")}</div>`
    + `<div class="kv" style="margin-top:10px"><span>Attacker points (engine)</span><b id="attacker-points">${v.attacker_points ?? 0}</b>`
    + `<span>Bottom multiplier</span><b>${b.multiplier ?? "–"}</b><span>Tricks played</span><b>${v.tricks.length}</b>`
    + (v.outcome ? `<span>Outcome</span><b>${esc(outcomeText(v, v.outcome))}</b>` : "") + `</div>`;
  }
  const open = v.violations.filter((x) => (x.status || "open") === "open");
  $("#flags").innerHTML = `<h2>Flags <a class="small" href="/tables/${encodeURIComponent(v.id)}/violations">queue →</a></h2>`
    + (v.violations.length ? v.violations.slice(-6).reverse().map((x) => `<div class="flag ${esc(x.status || "open")}"><b>${esc(x.rule)}</b> · ${seatName(v, x.seat)} · seq ${x.at_seq}→${x.proven_by_seq} <span class="status ${esc(x.status || "open")}">${esc(x.status || "open")}</span></div>`).join("") : '<p class="muted">No violation flagged.</p>')
    + (v.needs_referee.length ? `<div class="flag"><b>${v.needs_referee.length} reading(s) need a referee</b> · <a href="/tables/${encodeURIComponent(v.id)}/corrections">answer</a></div>` : "")
    + (open.length ? "" : "");
  $("#engine").innerHTML = `<h2>Engine</h2><div class="small mono">${esc(v.engine)}</div>`
    + (v.errors.length ? `<div class="small" style="color:var(--warn);margin-top:6px">${v.errors.slice(-3).map(esc).join("<br>")}</div>` : "");
  $("#tricks tbody").innerHTML = v.tricks.map((t, i) => `<tr class="${t.winner != null ? "" : ""}"><td>${i + 1}</td><td>${seatName(v, t.leader)}</td><td>${t.plays.map((p) => `<span title="${seatName(v, p.seat)}">${cardsHTML(p.cards, "sm")}</span>`).join(" ")}</td><td>${t.winner != null ? seatName(v, t.winner) : "–"}</td><td>${t.points ?? 0}</td></tr>`).reverse().join("")
    || '<tr><td colspan="5" class="muted">No trick finished yet.</td></tr>';
}

function outcomeText(v, o) {
  if (o.finishing_order) return o.finishing_order.map((s) => (v.seats[s] || {}).name || s).join(" › ");
  const bits = [];
  if (o.side) bits.push(`${o.side} side +${o.levels ?? 0}`);
  if (o.new_level) bits.push(`to level ${o.new_level}`);
  if (o.next_banker != null) bits.push(`next banker ${(v.seats[o.next_banker] || {}).name || o.next_banker}`);
  return bits.join(" · ") || JSON.stringify(o);
}

function drawGoujiSide(v, live, trick) {
  $("#centre").innerHTML = `<div class="label">${live ? `round ${v.tricks.length + 1}` : "waiting"}</div>`
    + `<div class="num">${trick ? trick.plays.length : 0}</div><div class="label">sets on this round</div>`
    + (live && trick.passes && trick.passes.length ? `<div class="label" style="margin-top:8px">passed: ${trick.passes.map((s) => seatName(v, s)).join(", ")}</div>` : "");
  $("#score").innerHTML = `<h2>Cards left</h2><div class="kv">${v.seats.map((s) => `<span>${esc(s.name)} <span class="muted small">team ${s.team + 1}</span></span><b>${s.cards_left ?? "–"}</b>`).join("")}`
    + `<span>Rounds played</span><b>${v.tricks.length}</b>`
    + (v.outcome ? `<span>Finishing order</span><b>${esc(outcomeText(v, v.outcome))}</b>` : "") + `</div>`;
}

/* ---------------------------------------------------------------- violation queue */

function describe(v, e) {
  const who = e.seat != null ? seatName(v, e.seat) : "the table";
  if (e.type === "play") return `${who} played ${cardsHTML(e.cards, "sm")}`;
  if (e.type === "bury") return `${who} buried ${esc(e.count)} cards face down`;
  if (e.type === "bottom_reveal") return `bottom revealed ${cardsHTML(e.cards, "sm")}`;
  return `${esc(e.type)}${e.cards ? " " + cardsHTML(e.cards, "sm") : ""}`;
}

function proofBlock(v, label, seq, play, evidence) {
  const img = evidence ? `<img src="/api/media/${encodeURIComponent(evidence)}" alt="evidence frame ${esc(evidence)}" data-evidence="${esc(evidence)}">` : '<div class="noimg">no evidence frame</div>';
  return `<div class="proof"><div class="muted small">${label} · seq ${esc(seq)}${play ? ` · t ${play.t}s` : ""}</div>`
    + `<div>${play ? describe(v, play) : "–"}</div>${img}</div>`;
}

function drawQueue(v) {
  scoreStrip(v);
  const root = $("#queue");
  preserveInputs(root, () => {
    if (!v.violations || !v.violations.length) { root.innerHTML = '<div class="panel muted">No violation flagged in this match.</div>'; return; }
    const rulings = {};
    (v.audit || []).filter((a) => a.type === "ruling").forEach((a) => { rulings[a.ref] = a; });
    const ordered = [...v.violations].sort((a, b) => ((a.status || "open") === "open" ? 0 : 1) - ((b.status || "open") === "open" ? 0 : 1));
    root.innerHTML = ordered.map((x) => {
      const status = x.status || "open";
      const r = rulings[x.id];
      const decide = status === "open" && CAN_RULE
        ? `<div class="decide"><textarea data-key="note-${esc(x.id)}" placeholder="Note for the record (why)"></textarea><div class="row"><button class="primary" data-act="upheld" data-id="${esc(x.id)}">Uphold</button><button data-act="dismissed" data-id="${esc(x.id)}">Dismiss</button></div><div class="small msg"></div></div>`
        : r ? `<div class="muted">${esc(r.decision)} by <b>${esc(r.by)}</b> at ${clock(r.at)}${r.note ? `<br>“${esc(r.note)}”` : ""}</div>` : status === "open" ? '<div class="muted">Awaiting a referee.</div>' : "";
      return `<section class="panel viol" data-violation="${esc(x.id)}"><div class="who-rule"><span class="rule">${esc(x.rule)}</span><span>${seatName(v, x.seat)}</span><span class="status ${esc(status)}">${esc(status)}</span>${x.provisional ? '<span class="status">provisional</span>' : ""}<span class="muted">hand ${esc(x.hand)} · ${esc(x.how || "")} · penalty: ${penaltyText(x.penalty)}</span></div>`
        + (x.detail ? `<div class="who-rule muted">${esc(x.detail)}</div>` : "")
        + proofBlock(v, "where it happened", x.at_seq, x.at_play, x.at_evidence)
        + proofBlock(v, "the play that proves it", x.proven_by_seq, x.proof_play, x.proof_evidence)
        + `<div>${decide}</div></section>`;
    }).join("");
  });
}

document.addEventListener("click", async (e) => {
  const btn = e.target.closest("button[data-act]");
  if (!btn) return;
  const box = btn.closest(".viol, tr, .prompt");
  const msg = box ? $(".msg", box) : null;
  btn.disabled = true;
  try {
    if (btn.dataset.act === "upheld" || btn.dataset.act === "dismissed") {
      const note = $(`[data-key="note-${CSS.escape(btn.dataset.id)}"]`);
      await post(`/api/tables/${encodeURIComponent(TID)}/rulings`, { violation: btn.dataset.id, decision: btn.dataset.act, note: note ? note.value : "" });
    } else if (btn.dataset.act === "correct") {
      const input = $(`[data-key="fix-${btn.dataset.seq}"]`);
      const cards = input.value;
      input.value = "";  // cleared before the new state redraws the row
      try {
        await post(`/api/tables/${encodeURIComponent(TID)}/corrections`, { ref: Number(btn.dataset.seq), cards, why: "misread corrected by referee" });
      } catch (err) {
        const again = $(`[data-key="fix-${btn.dataset.seq}"]`);
        if (again) again.value = cards;
        throw err;
      }
    } else if (btn.dataset.act === "candidate") {
      await post(`/api/tables/${encodeURIComponent(TID)}/corrections`, { ref: Number(btn.dataset.seq), cards: btn.dataset.cards, why: "needs_referee: candidate chosen" });
    } else if (btn.dataset.act === "stands") {
      await post(`/api/tables/${encodeURIComponent(TID)}/rulings`, { ref: `seq:${btn.dataset.seq}`, decision: "upheld", note: "reading stands" });
    }
    if (msg) msg.textContent = "Saved.";
  } catch (err) {
    if (msg) { msg.textContent = err.message; msg.style.color = "var(--bad)"; } else alert(err.message);
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
  div.textContent = `frame ${img.dataset.evidence} not stored`;
  img.replaceWith(div);
}, true);

/* ---------------------------------------------------------------- corrections */

function drawCorrections(v) {
  scoreStrip(v);
  const prompts = $("#prompts");
  prompts.innerHTML = `<h2>Readings that need a referee</h2>` + ((v.needs_referee || []).length
    ? v.needs_referee.map((n) => `<div class="prompt flag"><b>seq ${n.ref}</b> · ${esc(n.reason || "unsure")} · choose the cards actually played:<div class="candidates" style="margin-top:6px">${(n.candidates || []).map((c) => `<button data-act="candidate" data-seq="${n.ref}" data-cards="${esc(c.cards.join(" "))}">${cardsHTML(c.cards, "sm")} ${(c.confidence * 100).toFixed(0)}%</button>`).join("")}${CAN_RULE ? `<button data-act="stands" data-seq="${n.ref}">Reading stands</button>` : ""}</div><div class="small msg"></div></div>`).join("")
    : '<p class="muted">None pending.</p>');
  const plays = $("#plays tbody");
  preserveInputs(plays, () => {
    plays.innerHTML = (v.plays || []).slice().reverse().map((p) => `<tr data-seq="${p.seq}"><td class="mono">${p.seq}</td><td>${p.t}s</td><td>${seatName(v, p.seat)}</td><td>${cardsHTML(p.cards, "sm")}${p.corrected_by ? ` <span class="status upheld" title="corrected by seq ${esc(p.corrected_by.join(", "))}">corrected</span>` : ""}</td><td>${p.confidence != null ? (p.confidence * 100).toFixed(0) + "%" : "–"}</td>`
      + `<td>${CAN_RULE ? `<span class="fix"><input data-key="fix-${p.seq}" placeholder="e.g. ${esc(p.cards.join(" "))}" aria-label="corrected cards for seq ${p.seq}"><button data-act="correct" data-seq="${p.seq}">Correct</button></span><span class="small msg"></span>` : '<span class="muted">view only</span>'}</td></tr>`).join("")
      || '<tr><td colspan="6" class="muted">No play yet in this hand.</td></tr>';
  });
  const sel = $("#v-seat");
  if (sel && sel.options.length !== v.seats.length) {
    sel.innerHTML = v.seats.map((x) => `<option value="${x.index}">${esc(x.name)}</option>`).join("");
  }
  $("#audit tbody").innerHTML = (v.audit || []).slice().reverse().map((a) => `<tr><td class="mono">${a.seq}</td><td>${clock(a.at)}</td><td>${esc(a.by)}</td><td>${a.type === "correction" ? `corrected seq ${a.ref}${a.cards ? ` to ${cardsHTML(a.cards, "sm")}` : ""}${a.delete ? " (deleted)" : ""}` : a.type === "ruling" ? `${esc(a.decision)} ${esc(a.ref)}` : `${esc(a.rule)} on ${seatName(v, a.seat)}`}</td><td>${esc(a.why || a.note || "")}</td></tr>`).join("")
    || '<tr><td colspan="5" class="muted">No referee action yet.</td></tr>';
}

document.addEventListener("submit", async (e) => {
  if (e.target.id !== "enter-violation") return;
  e.preventDefault();
  const f = new FormData(e.target);
  try {
    await post(`/api/tables/${encodeURIComponent(TID)}/violations`, { seat: Number(f.get("seat")), rule: f.get("rule"), note: f.get("note") });
    $("#v-msg").textContent = "Entered.";
    e.target.note.value = "";
  } catch (err) {
    $("#v-msg").textContent = err.message;
  }
});

/* ---------------------------------------------------------------- hall */

function drawHall(tables) {
  const root = $("#hall");
  if (!tables.length) { root.innerHTML = '<p class="muted">No table has started a match on this node.</p>'; return; }
  root.innerHTML = tables.map((t) => `<a class="tcard" href="/tables/${encodeURIComponent(t.id)}"><h3><span>Table ${esc(t.id)}${t.link && t.link !== "online" ? ` <span class="status open">${esc(t.link)}</span>` : ""}</span><span class="status ${t.open_violations ? "open" : ""}">${t.open_violations} open</span></h3>`
    + `<div class="muted small">${esc(t.game || "")} · ${esc(t.profile || "")} · hand ${t.hand ?? "–"} · ${esc(t.status || "")}</div>`
    + `<div class="teams">${(t.teams || []).map((x) => `<div>${esc(x.names.join(" · "))}${x.banker_side ? " ★" : ""}<br><span class="muted">level ${esc(x.level)}</span></div>`).join("")}</div>`
    + `<div class="small">trump ${t.trump ? `${esc(t.trump.level || "")} ${suitHTML(t.trump.suit)}` : "–"} · attackers ${t.attacker_points ?? 0} pts${t.needs_referee ? ` · <b style="color:var(--warn)">${t.needs_referee} to check</b>` : ""}</div></a>`).join("");
}

/* ---------------------------------------------------------------- health */

function fmtBytes(n) {
  const u = ["B", "KB", "MB", "GB", "TB"]; let i = 0;
  while (n >= 1024 && i < u.length - 1) { n /= 1024; i++; }
  return `${n.toFixed(1)} ${u[i]}`;
}

async function drawHealth() {
  try {
    const h = await (await fetch("/api/health", { credentials: "same-origin" })).json();
    setLive(true);
    const m = (k, v, cls) => `<div class="metric ${cls || ""}"><div class="k">${k}</div><div class="v">${v}</div></div>`;
    const out = [m("disk free", fmtBytes(h.disk_free_bytes), h.disk_free_bytes < 1e9 ? "bad" : "ok")];
    for (const t of h.tables) {
      const n = t.node || {};
      const age = n.updated ? Date.now() / 1000 - n.updated : null;
      const serial = n.serial || {};
      out.push(`<div class="metric" style="grid-column:1/-1"><div class="k">table ${esc(t.id)} · ${esc(t.engine)} · seq ${t.seq}${n.source ? ` · ${esc(n.source)}` : ""}</div></div>`);
      out.push(m("frames / s", n.fps != null ? Number(n.fps).toFixed(1) : "–"));
      out.push(m("model ms", n.model_ms != null ? Number(n.model_ms).toFixed(1) : "–"));
      out.push(m("queue depth", n.queue ?? "–", n.queue > 10 ? "bad" : ""));
      out.push(m("serial link", serial.state ? esc(serial.state) : "–", serial.state === "up" ? "ok" : serial.state ? "bad" : ""));
      out.push(m("node report age", age != null ? `${age.toFixed(0)} s` : "no report", age == null || age > 10 ? "bad" : "ok"));
      out.push(m("record errors", t.errors, t.errors ? "bad" : "ok"));
    }
    out.push(m("refused requests", Object.values(h.counters).reduce((a, b) => a + b, 0)));
    $("#health").innerHTML = out.join("");
  } catch (err) {
    setLive(false);
  }
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
  const img = $("#frame"), svg = $("#overlay");
  let pts = null;
  const [W, H] = layout.table_size;
  const names = ["top-left", "top-right", "bottom-right", "bottom-left"];
  function draw() {
    const w = img.naturalWidth || 1280, h = img.naturalHeight || 720;
    svg.setAttribute("viewBox", `0 0 ${w} ${h}`);
    if (!pts) pts = saved && saved.points ? saved.points : [[w * 0.15, h * 0.1], [w * 0.85, h * 0.1], [w * 0.85, h * 0.9], [w * 0.15, h * 0.9]];
    const map = solveHomography([[0, 0], [W, 0], [W, H], [0, H]], pts);
    const poly = (p) => p.map(([x, y]) => map(x, y).map((n) => n.toFixed(1)).join(",")).join(" ");
    const colours = ["#58a6ff", "#e3b341", "#7ee787", "#ff7b72", "#d2a8ff", "#79c0ff"];
    svg.innerHTML = `<polygon points="${poly([[0, 0], [W, 0], [W, H], [0, H]])}" fill="none" stroke="#fff" stroke-width="3" stroke-dasharray="10 6"/>`
      + layout.areas.map((a, i) => { const c = a.kind === "centre" ? "#ffffff" : colours[(a.seat || 0) % colours.length]; const [cx, cy] = map(...a.polygon.reduce((s, p) => [s[0] + p[0] / a.polygon.length, s[1] + p[1] / a.polygon.length], [0, 0])); return `<polygon points="${poly(a.polygon)}" fill="${c}" fill-opacity="0.18" stroke="${c}" stroke-width="2"/><text x="${cx}" y="${cy}" fill="${c}" font-size="${Math.max(14, w / 60)}" text-anchor="middle" font-family="sans-serif">${esc(a.name)}</text>`; }).join("")
      + pts.map(([x, y], i) => `<circle class="handle" data-i="${i}" cx="${x}" cy="${y}" r="${Math.max(10, w / 90)}" fill="#f85149" stroke="#fff" stroke-width="3"/>`).join("");
    $("#corners").innerHTML = pts.map((p, i) => `<li>${names[i]}: ${p[0].toFixed(0)}, ${p[1].toFixed(0)}</li>`).join("");
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
    try { await post(`/api/tables/${encodeURIComponent(TID)}/calibration`, { points: pts }); $("#calib-msg").textContent = `Saved at ${new Date().toLocaleTimeString()}.`; }
    catch (err) { $("#calib-msg").textContent = err.message; }
  });
  img.addEventListener("load", draw);
  img.addEventListener("error", () => { $("#calib-msg").textContent = "No live frame from the table node yet."; draw(); });
  if (img.complete) draw();
  setLive(true);
}

/* ---------------------------------------------------------------- boot */

const DRAW = { table: drawTable, violations: drawQueue, corrections: drawCorrections };

if (DRAW[PAGE] && TID) {
  openStream(`/api/tables/${encodeURIComponent(TID)}/stream`, {
    state: (v) => {
      lastView = v;
      navBadge(v);
      DRAW[PAGE](v);
      seenSeq = v.seq;
      document.body.dataset.seq = v.seq;
    },
  });
} else if (PAGE === "hall") {
  openStream("/api/hall/stream", { hall: drawHall });
} else if (PAGE === "health") {
  drawHealth();
  setInterval(drawHealth, 2000);
} else if (PAGE === "calibration") {
  calibration();
}
