// The league form shows the fields of the kind chosen, and the board that kind ranks by: open
// play starts on the weekly board (its best matches of each week), a league or a tournament on
// total points; each board's own number shows with it. Without this script every field shows
// and the service takes what is sent.
(function () {
  document.querySelectorAll("form").forEach((form) => {
    const kind = form.querySelector("select[name=kind]");
    const board = form.querySelector("select[name=board]");
    if (!kind || !board) return;
    const show = () => {
      const k = kind.value;
      const open = k === "open";
      // Boards that do not suit the kind are not offered.
      board.querySelectorAll("option").forEach((o) => {
        const fits = o.value === "best_per_week" ? open : o.value === "best_per_night" ? !open : true;
        o.hidden = !fits;
        o.disabled = !fits;
      });
      if (board.selectedOptions[0] && board.selectedOptions[0].disabled) board.value = open ? "best_per_week" : "total";
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
