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
    if (widgets.includes("score") && v.view === "gouji") {
      /* Gouji (registry view key): the finishing order so far and the 够级 set standing */
      const p = v.panel || {};
      const places = (p.places || []).map((x) => `<div class="team"><span class="k">${esc(x.place)}</span><span>${name(v, x.seat)}</span></div>`).join("");
      const top = p.gouji_top ? `<div class="team"><span class="k">${esc(t("够级"))}</span><span>${name(v, p.gouji_top.seat)}</span></div>` : "";
      out.push(`<div class="w score" data-widget="score"><div class="team"><span class="k">${esc(t("deal {n}", { n: v.hand ?? "–" }))}</span><span>${esc(t("{n} burn(s)", { n: (p.burns || []).length }))}</span></div>${places || `<div class="team"><span class="k">${esc(t("Finishing order"))}</span><span>${esc(t("none yet"))}</span></div>`}${top}</div>`);
    } else if (widgets.includes("score")) {
      const teams = v.teams.map((tm) => `<div class="team${tm.banker_side ? " bank" : ""}"><span class="k">${esc(tm.names.join(" · "))}${tm.banker_side ? " · " + esc(t("banker")) : ""}</span><span>${esc(t("level {l}", { l: tm.level }))}</span></div>`).join("");
      out.push(`<div class="w score" data-widget="score">${teams}<div class="team"><span class="k">${esc(t("Attackers' score"))}</span><span class="pts">${v.attacker_points ?? 0}</span></div><div class="team"><span class="k">${esc(t("hand {n}", { n: v.hand ?? "–" }))} · ${esc(t("trump"))}</span><span class="trump">${esc(v.trump.level || "")} ${suitHTML(v.trump.suit)}</span></div></div>`);
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
