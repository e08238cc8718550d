// The league form shows the fields of the kind chosen, and choosing a kind brings the board it
// usually ranks by: open play the weekly board (its best matches of each week), a league or a
// tournament total points; each board's own number shows with it. Every board stays on offer,
// and a league's stored board is never changed by opening its form. Without this script every
// field shows and the service takes what is sent.
(function () {
  document.querySelectorAll("form").forEach((form) => {
    const kind = form.querySelector("select[name=kind]");
    const board = form.querySelector("select[name=board]");
    if (!kind || !board) return;
    const show = () => {
      const k = kind.value;
      form.querySelectorAll("[data-kinds], [data-board]").forEach((f) => {
        const kindOk = !f.dataset.kinds || f.dataset.kinds.split(" ").includes(k);
        const boardOk = !f.dataset.board || f.dataset.board === board.value;
        f.hidden = !(kindOk && boardOk);
      });
    };
    kind.addEventListener("change", () => {
      // A new choice of kind brings its usual board with it.
      board.value = kind.value === "open" ? "best_per_week" : "total";
      show();
    });
    board.addEventListener("change", show);
    show();
  });
})();
