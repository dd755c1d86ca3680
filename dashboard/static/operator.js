/* The stream operator's panel (dashboard/operator.py): the link with a copy button and its
   delay (a longer one is added to the link, never a shorter one than the node's floor), the
   two previews with their delay said, and the safe-area guides switch. */
"use strict";
(function () {
  const box = document.getElementById("op-link");
  if (!box) return;
  const url = document.getElementById("op-url");
  const input = document.getElementById("op-delay");
  const air = document.getElementById("op-air-frame");
  const base = url.dataset.base;
  const floor = Number(box.dataset.floor);
  const standard = Number(box.dataset.defaultDelay);

  function link(delay) {
    return delay === standard ? base : `${base}&delay=${delay}`;
  }

  function say(delay) {
    document.getElementById("op-delay-badge").textContent = t("delay {n} s", { n: delay });
    document.getElementById("op-air-note").textContent = t("what the link shows: the table as it was {n} s ago", { n: delay });
    document.getElementById("op-next-note").textContent = t("the table now: this goes on air in {n} s", { n: delay });
  }

  function setDelay() {
    let delay = Math.round(Number(input.value));
    if (!Number.isFinite(delay) || delay < floor) delay = Math.ceil(floor);
    delay = Math.min(delay, 3600);
    input.value = String(delay);
    box.dataset.delay = String(delay);
    url.textContent = link(delay);
    if (air.getAttribute("src") !== link(delay)) air.setAttribute("src", link(delay));
    say(delay);
  }

  input.addEventListener("change", setDelay);
  say(standard);

  document.getElementById("op-copy").addEventListener("click", async () => {
    const msg = document.getElementById("op-copied");
    const text = url.textContent;
    try {
      await navigator.clipboard.writeText(text);
    } catch (_err) { // no clipboard permission (an old browser, a plain-http LAN name)
      const range = document.createRange();
      range.selectNodeContents(url);
      const sel = window.getSelection();
      sel.removeAllRanges();
      sel.addRange(range);
      if (!document.execCommand("copy")) { msg.textContent = t("Select the link and copy it by hand."); return; }
    }
    msg.textContent = t("Copied: paste it as the URL of an OBS browser source.");
  });

  // each preview is the overlay at a 1280 × 720 browser source, scaled down to its box
  const fit = () => document.querySelectorAll(".op-preview .screen").forEach((s) => {
    s.style.setProperty("--scale", String(s.clientWidth / 1280));
  });
  new ResizeObserver(fit).observe(document.getElementById("op-previews"));
  fit();

  document.getElementById("op-guides").addEventListener("change", (e) => {
    document.getElementById("op-previews").classList.toggle("guides-on", e.target.checked);
  });
})();
