/* The table camera behind the login: a low-rate JPEG snapshot (GET /api/tables/<id>/frame.jpg,
   the node's latest masked frame, hands blacked out) on the table page (#live-camera, every
   second) and on each hall tile (every 3 s), with the table's health on the tile: camera,
   frames per second, CPU temperature, disk. The overlay never loads this script or the frame.
   The hall redraws its tiles on every change: each tile's live block is kept and put back. */
(() => {
  const page = document.body.dataset.page;
  const table = document.body.dataset.table;
  const frameUrl = (id) => `/api/tables/${encodeURIComponent(id)}/frame.jpg?at=${Date.now()}`;

  /* Load the next snapshot off-screen, then show it: no flicker, and a missing frame says so. */
  function refresh(img, id, msg) {
    const next = new Image();
    next.onload = () => {
      img.src = next.src;
      img.hidden = false;
      img.dataset.loaded = String(Number(img.dataset.loaded || 0) + 1);
      if (msg) msg.textContent = "";
    };
    next.onerror = () => {
      if (msg) msg.textContent = t("No live frame from the table node yet.");
      img.hidden = !img.dataset.loaded;
    };
    next.src = frameUrl(id);
  }

  if (page === "table" && table) {
    const img = document.getElementById("live-frame");
    const msg = document.getElementById("live-frame-msg");
    if (img) {
      refresh(img, table, msg);
      setInterval(() => { if (!document.hidden) refresh(img, table, msg); }, 1000);
    }
  }

  if (page !== "hall") return;
  const blocks = new Map(); // table id → its kept live block
  let health = {};

  function bytes(n) {
    const u = ["B", "KB", "MB", "GB", "TB"];
    let i = 0;
    while (n >= 1024 && i < u.length - 1) { n /= 1024; i++; }
    return `${n.toFixed(1)} ${u[i]}`;
  }

  function line(node) {
    if (!node) return { text: t("no health from the table node yet"), bad: true };
    const parts = [];
    let bad = false;
    const cam = node.camera;
    if (cam && cam.camera === "lost") {
      parts.push(t("camera lost ({s} s)", { s: Number(cam.lost_for_s || 0).toFixed(0) }));
      bad = true;
    } else if (cam) parts.push(t("camera ok"));
    parts.push(node.fps != null ? t("{n} frames/s", { n: Number(node.fps).toFixed(1) }) : t("frames/s –"));
    const host = node.host || {};
    if (host.cpu_temp_c != null) {
      parts.push(t("CPU {n} °C", { n: Number(host.cpu_temp_c).toFixed(0) }));
      if (host.cpu_temp_c >= 80) bad = true; // a Pi throttles here and drops frames
    }
    if (host.disk_free_bytes != null) parts.push(t("disk {free} free", { free: bytes(host.disk_free_bytes) }));
    const age = node.updated ? Date.now() / 1000 - node.updated : null;
    if (age != null && age > 15) { parts.push(t("silent for {s} s", { s: age.toFixed(0) })); bad = true; }
    return { text: parts.join(" · "), bad };
  }

  function block(id) {
    let el = blocks.get(id);
    if (!el) {
      el = document.createElement("div");
      el.className = "tile-live";
      el.dataset.live = id;
      const img = document.createElement("img");
      img.className = "tile-frame";
      img.alt = t("live camera of table {id}", { id });
      img.hidden = true;
      const hl = document.createElement("div");
      hl.className = "small health-line";
      el.append(img, hl);
      blocks.set(id, el);
      refresh(img, id, null);
    }
    const got = line(health[id]);
    const hl = el.querySelector(".health-line");
    hl.textContent = got.text;
    hl.classList.toggle("bad-text", got.bad);
    return el;
  }

  function place() {
    document.querySelectorAll("#hall a.tcard").forEach((card) => {
      const id = decodeURIComponent((card.getAttribute("href") || "").replace(/^\/tables\//, ""));
      if (!id) return;
      const el = block(id);
      if (el.parentElement !== card) card.append(el);
    });
  }

  async function loadHealth() {
    try {
      const resp = await fetch("/api/health", { credentials: "same-origin" });
      if (!resp.ok) return;
      const body = await resp.json();
      health = {};
      (body.tables || []).forEach((tb) => { health[tb.id] = tb.node; });
    } catch (_err) {
      return;
    }
    place();
  }

  let queued = null;
  new MutationObserver(() => {
    if (queued) return;
    queued = requestAnimationFrame(() => { queued = null; place(); });
  }).observe(document.getElementById("hall") || document.body, { childList: true });
  setInterval(() => {
    if (document.hidden) return;
    loadHealth();
    blocks.forEach((el, id) => refresh(el.querySelector("img"), id, null));
  }, 3000);
  loadHealth();
})();
