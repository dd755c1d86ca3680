/* Clips (tablescan.clips): the few seconds of table around every violation's and referee
   prompt's play, a WebM video put beside the still frames of that play, wherever a page draws
   them (.viol, .prompt), and the table's latest clips in #clips-panel. The pages redraw on
   every change: a clip's <video> is kept and put back, so a referee's playback survives. */
(() => {
  const table = document.body.dataset.table;
  // the pages that draw a play's frames (and the table page's latest clips)
  if (!table || !["table", "violations", "corrections"].includes(document.body.dataset.page)) return;
  const clips = new Map(); // the play's evidence frame id → {evidence, media, seq, size, url}
  const kept = new Map(); // evidence id → its <figure class="clip">
  let fetchedAt = 0;
  let timer = null;

  async function load() {
    fetchedAt = Date.now();
    try {
      const resp = await fetch(`/api/tables/${encodeURIComponent(table)}/clips`, { credentials: "same-origin" });
      if (!resp.ok) return;
      (await resp.json()).forEach((c) => clips.set(c.evidence, c));
    } catch (_err) {
      return; // offline for a moment: the next redraw or tick asks again
    }
    place();
  }

  function figure(c) {
    const fig = document.createElement("figure");
    fig.className = "clip";
    fig.dataset.clip = c.evidence;
    const video = document.createElement("video");
    video.controls = true;
    video.muted = true;
    video.playsInline = true;
    video.preload = "metadata";
    video.src = c.url;
    video.setAttribute("aria-label", t("clip of the play {id}", { id: c.evidence }));
    // a redraw takes the figure out of the page (which pauses it): play on where it was
    video.addEventListener("play", () => { video.dataset.playing = "1"; });
    video.addEventListener("pause", () => { if (video.isConnected) delete video.dataset.playing; });
    video.addEventListener("ended", () => { delete video.dataset.playing; });
    const cap = document.createElement("figcaption");
    cap.className = "small muted";
    cap.textContent = t("clip · seconds before and after the play · {id}", { id: c.evidence });
    fig.append(video, cap);
    return fig;
  }

  function clipFor(evidence, c) {
    let fig = kept.get(evidence);
    if (!fig || fig.isConnected) {
      if (fig && fig.isConnected) return figure(c); // shown elsewhere on the page as well
      fig = figure(c);
      kept.set(evidence, fig);
    }
    return fig;
  }

  function resume(fig) {
    const video = fig.querySelector("video");
    if (video && video.dataset.playing && video.paused) video.play().catch(() => {});
  }

  function place() {
    let missing = false;
    document.querySelectorAll(".viol, .prompt").forEach((host) => {
      const seen = new Set();
      host.querySelectorAll("img[data-evidence]").forEach((img) => {
        const evidence = img.dataset.evidence;
        if (seen.has(evidence)) return;
        seen.add(evidence);
        const c = clips.get(evidence);
        if (!c) { missing = true; return; }
        const shot = img.closest("figure.shot") || img;
        const next = shot.nextElementSibling;
        if (next && next.dataset && next.dataset.clip === evidence) return;
        const fig = clipFor(evidence, c);
        shot.after(fig);
        resume(fig);
      });
    });
    panel();
    // a clip is written a few seconds after its play: ask again for the frames without one
    if (missing && Date.now() - fetchedAt > 3000) load();
  }

  function panel() {
    const root = document.getElementById("clips-panel");
    if (!root) return;
    const list = [...clips.values()].sort((a, b) => (b.seq ?? -1) - (a.seq ?? -1)).slice(0, 3);
    root.hidden = false;
    const body = root.querySelector(".clip-list");
    const want = list.map((c) => c.evidence).join(" ");
    if (body.dataset.shown === want) return;
    body.dataset.shown = want;
    body.replaceChildren();
    if (!list.length) {
      const p = document.createElement("p");
      p.className = "muted small";
      p.textContent = t("No clip yet: each violation and referee prompt gets one.");
      body.append(p);
      return;
    }
    list.forEach((c) => {
      const fig = clipFor(c.evidence, c);
      const cap = fig.querySelector("figcaption");
      if (c.seq != null) cap.textContent = t("clip · seq {n} · {id}", { n: c.seq, id: c.evidence });
      body.append(fig);
      resume(fig);
    });
  }

  new MutationObserver(() => {
    if (timer) return;
    timer = requestAnimationFrame(() => { timer = null; place(); });
  }).observe(document.body, { childList: true, subtree: true });
  setInterval(() => { if (Date.now() - fetchedAt > 5000) load(); }, 5000);
  load();
})();
