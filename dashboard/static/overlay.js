/* Broadcast overlay: one delayed SSE stream; draws only the widgets asked for in the URL. */
"use strict";
(function () {
  const body = document.body;
  const tid = body.dataset.table;
  const widgets = body.dataset.widgets.split(",");
  const params = new URLSearchParams(location.search);
  const root = document.getElementById("ov");
  root.style.transform = `scale(${body.dataset.scale})`;
  const q = `token=${encodeURIComponent(params.get("token") || "")}&delay=${encodeURIComponent(body.dataset.delay)}`;

  function name(v, seat) { return esc((v.seats[seat] || {}).name || `seat ${seat}`); }

  function trickBlock(v, trick, label) {
    if (!trick || !trick.plays.length) return "";
    const plays = trick.plays.map((p) => `<div class="p${trick.winner === p.seat ? " win" : ""}"><span class="nm">${name(v, p.seat)}</span>${cardsHTML(p.cards, "sm")}</div>`).join("");
    return `<div class="w" data-widget="${label}"><div class="k">${label === "trick" ? "Current trick" : `Last trick${trick.winner != null ? ` · won by ${name(v, trick.winner)} · ${trick.points} pts` : ""}`}</div><div class="trick">${plays}</div></div>`;
  }

  function render(v) {
    if (!v || !v.seats) { root.innerHTML = ""; return; }
    const out = [];
    if (widgets.includes("score")) {
      const teams = v.teams.map((t) => `<div class="team${t.banker_side ? " bank" : ""}"><span class="k">${esc(t.names.join(" · "))}${t.banker_side ? " · banker" : ""}</span><span>level ${esc(t.level)}</span></div>`).join("");
      out.push(`<div class="w score" data-widget="score">${teams}<div class="team"><span class="k">Attackers</span><span class="pts">${v.attacker_points ?? 0}</span></div><div class="team"><span class="k">Hand ${v.hand ?? "–"} · trump</span><span class="trump">${esc(v.trump.level || "")} ${suitHTML(v.trump.suit)}</span></div></div>`);
    }
    if (widgets.includes("trick")) out.push(trickBlock(v, v.current_trick, "trick"));
    if (widgets.includes("last")) out.push(trickBlock(v, v.last_trick, "last"));
    if (widgets.includes("bottom") && v.bottom && v.bottom.count != null) {
      const b = v.bottom.cards ? cardsHTML(v.bottom.cards, "sm") : backsHTML(v.bottom.count, "sm");
      out.push(`<div class="w" data-widget="bottom"><div class="k">Bottom${v.bottom.cards ? "" : " (face down)"}</div>${b}</div>`);
    }
    root.innerHTML = out.join("");
    root.dataset.seq = v.seq;
  }

  const es = new EventSource(`/overlay/${encodeURIComponent(tid)}/stream?${q}`);
  es.addEventListener("state", (m) => render(JSON.parse(m.data)));
  // the head referee revoked this link: go blank and stop asking
  es.addEventListener("revoked", () => { es.close(); render(null); });
})();
