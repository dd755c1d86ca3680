/* The operator panel's switches on the overlay itself (dashboard/operator.py): a test pattern
   until the match is on air (colour bars, the table, the safe areas; for lining up the browser
   source before the first deal), and the "violation upheld" stinger, a wipe across the lower
   third that holds four seconds each time the delayed view shows a newly upheld violation.
   It reads the states overlay.js draws (the "overlay:state" event): nothing else, nothing
   earlier than the link's delay. */
"use strict";
(function () {
  const body = document.body;
  const tid = body.dataset.table;
  const HOLD_MS = 4000;
  let pattern = null;
  let seen = null; // upheld violations already on air (the first state sets it: no replay)
  let queue = [];
  let playing = false;

  function showPattern(on) {
    if (on && !pattern) {
      pattern = document.createElement("div");
      pattern.className = "testpattern";
      pattern.id = "testpattern";
      const bars = ["#c0c0c0", "#c0c000", "#00c0c0", "#00c000", "#c000c0", "#c00000", "#0000c0"]
        .map((c) => `<i style="background:${c}"></i>`).join("");
      pattern.innerHTML = `<div class="bars">${bars}</div><div class="safe action"></div><div class="safe title"></div>`
        + `<div class="label"><b>${esc(t("Test pattern"))}</b><span>${esc(t("Table {id}", { id: tid }))}</span><span>${esc(t("the graphics replace it when the match is on air"))}</span></div>`;
      body.append(pattern);
    } else if (!on && pattern) {
      pattern.remove();
      pattern = null;
    }
    body.dataset.pattern = on ? "1" : "0";
  }

  function play() {
    if (playing || !queue.length) return;
    playing = true;
    const x = queue.shift();
    const el = document.createElement("div");
    el.className = "stinger";
    el.innerHTML = `<div class="band"><span class="k">${esc(t("Referee: violation upheld"))}</span><b>${esc(ruleName(x.rule))}</b><span>${esc(x.who)}</span></div>`;
    body.append(el);
    body.dataset.stingers = String(Number(body.dataset.stingers || 0) + 1);
    requestAnimationFrame(() => el.classList.add("on"));
    setTimeout(() => {
      el.classList.remove("on");
      el.classList.add("off");
      setTimeout(() => { el.remove(); playing = false; play(); }, 700);
    }, HOLD_MS);
  }

  document.addEventListener("overlay:state", (e) => {
    const v = e.detail;
    const live = Boolean(v && v.seats);
    showPattern(body.dataset.testpattern === "1" && !live);
    if (!live) return;
    const upheld = v.violations || [];
    if (seen === null) { seen = upheld.length; return; }
    if (body.dataset.stinger === "1") {
      upheld.slice(seen).forEach((x) => {
        queue.push({ rule: x.rule, who: (v.seats[x.seat] || {}).name || t("seat {n}", { n: x.seat }) });
      });
      play();
    }
    seen = Math.max(seen, upheld.length);
  });

  // before any state (a table with no match yet, or none on air within the delay)
  if (body.dataset.testpattern === "1") showPattern(true);
})();
