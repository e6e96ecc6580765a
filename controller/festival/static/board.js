// The festival board's page (docs/festival.md): read-only. One WebSocket (/api/stream)
// brings the board -- every hall's game, question, leader and table rows (place, name, points,
// tags in words, whatever the game) -- on connect and after every change, each with its seq;
// the page reconnects by itself.
"use strict";
(function () {
  const L = JSON.parse(document.getElementById("labels").textContent || "{}");
  const $ = (id) => document.getElementById(id);
  let seq = -1, retry = 500;
  window.board = { seq: () => seq, last: null };
  $("title").textContent = L.board_title || "";

  function el(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }
  function card(c) {
    const box = el("section", "card" + (c.game ? "" : " is-waiting") + (c.finished ? " is-finished" : ""));
    box.dataset.hall = c.hall;
    box.dataset.competition = c.competition;
    const rows = c.standings.slice(0, 6);
    const head = c.lines.length - rows.length;   // the board's lines, then its standings rows
    c.lines.slice(0, head).forEach((line, i) => {
      const node = el(i === 0 ? "h2" : "div", "line c-" + line.colour, line.text);
      if (c.leader && i === head - 1) node.classList.add("leader");
      box.append(node);
    });
    if (rows.length) {
      const table = el("table", "standings");
      rows.forEach((r) => {
        const tr = el("tr");
        tr.append(el("td", "place", r.place), el("td", "name", r.name), el("td", "points", r.points),
                  el("td", "tags", (r.tags || []).join(", ")));
        table.append(tr);
      });
      box.append(table);
    }
    return box;
  }
  function render(b) {
    $("title").textContent = b.title || L.board_title || "";
    $("conn").textContent = b.problem || (b.connected ? "" : "…");
    $("conn").classList.toggle("bad", !!b.problem);
    $("refused").textContent = (b.refused && b.refused.text) || "";
    const cards = b.cards || [];
    if (!cards.length) {
      $("cards").replaceChildren(el("p", "empty", L.board_no_games || ""));
      return;
    }
    $("cards").replaceChildren(...cards.map(card));
  }
  function connect() {
    const ws = new WebSocket((location.protocol === "https:" ? "wss://" : "ws://") + location.host + "/api/stream");
    ws.onopen = () => { retry = 500; };
    ws.onmessage = (m) => {
      let b;
      try { b = JSON.parse(m.data); } catch (e) { return; }
      if (typeof b.seq !== "number" || b.seq === seq) return;
      seq = b.seq;
      window.board.last = b;
      render(b);
    };
    ws.onclose = () => {
      $("conn").textContent = "…";
      setTimeout(connect, retry);
      retry = Math.min(retry * 2, 5000);
    };
  }
  connect();
})();
