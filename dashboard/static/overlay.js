/* Broadcast overlay: one delayed SSE stream; draws only the widgets asked for in the URL.
   Strings come from the page's catalog (Chinese unless the URL says &lang=en). */
"use strict";
(function () {
  const body = document.body;
  const tid = body.dataset.table;
  const widgets = body.dataset.widgets.split(",");
  const params = new URLSearchParams(location.search);
  const root = document.getElementById("ov");
  root.style.transform = `scale(${body.dataset.scale})`;
  const q = `token=${encodeURIComponent(params.get("token") || "")}&delay=${encodeURIComponent(body.dataset.delay)}`;

  function name(v, seat) { return esc((v.seats[seat] || {}).name || t("seat {n}", { n: seat })); }

  function trickBlock(v, trick, label) {
    if (!trick || !trick.plays.length) return "";
    const plays = trick.plays.map((p) => `<div class="p${trick.winner === p.seat ? " win" : ""}"><span class="nm">${name(v, p.seat)}</span>${unitsHTML(p.cards, "sm")}</div>`).join("");
    const head = label === "trick" ? esc(t("Current trick"))
      : esc(t("Last trick")) + (trick.winner != null ? " · " + tHTML("won by {name} · {n} points", { name: name(v, trick.winner), n: esc(trick.points) }) : "");
    return `<div class="w" data-widget="${label}"><div class="k">${head}</div><div class="trick">${plays}</div></div>`;
  }

  function render(v) {
    if (!v || !v.seats) { root.innerHTML = ""; return; }
    const out = [];
    if (widgets.includes("score")) {
      const teams = v.teams.map((tm) => `<div class="team${tm.banker_side ? " bank" : ""}"><span class="k">${esc(tm.names.join(" · "))}${tm.banker_side ? " · " + esc(t("banker")) : ""}</span><span>${esc(t("level {l}", { l: tm.level }))}</span></div>`).join("");
      out.push(`<div class="w score" data-widget="score">${teams}<div class="team"><span class="k">${esc(t("Attackers' score"))}</span><span class="pts">${v.attacker_points ?? 0}</span></div><div class="team"><span class="k">${esc(t("hand {n}", { n: v.hand ?? "–" }))} · ${esc(t("trump"))}</span><span class="trump">${esc(v.trump.level || "")} ${suitHTML(v.trump.suit)}</span></div>${v.match && v.match.over ? `<div class="team match-over"><span class="k">${esc(t("Match over"))}</span></div>` : ""}</div>`);
    }
    if (widgets.includes("trick")) out.push(trickBlock(v, v.current_trick, "trick"));
    if (widgets.includes("last")) out.push(trickBlock(v, v.last_trick, "last"));
    if (widgets.includes("bottom") && v.bottom && v.bottom.count != null) {
      const b = v.bottom.cards ? cardsHTML(v.bottom.cards, "sm") : backsHTML(v.bottom.count, "sm");
      out.push(`<div class="w" data-widget="bottom"><div class="k">${esc(v.bottom.cards ? t("Bottom") : t("Bottom (face down)"))}</div>${b}</div>`);
    }
    root.innerHTML = out.join("");
    root.dataset.seq = v.seq;
  }

  const es = new EventSource(`/overlay/${encodeURIComponent(tid)}/stream?${q}`);
  es.addEventListener("state", (m) => render(JSON.parse(m.data)));
  // the head referee revoked this link: go blank and stop asking
  es.addEventListener("revoked", () => { es.close(); render(null); });
})();
