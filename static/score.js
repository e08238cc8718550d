// The scoring screen, and the "games waiting on this device" notes on the night page: the
// module the pages load. Each concern is a module of its own under /static/score/:
//   store.js  the games kept on this device (localStorage), shared with the night page;
//   night.js  the night page: waiting games, check-in search; the service worker's registration;
//   bar.js    the fixed bar at the foot: the verdict, the points, Save and the status line;
//   hand.js   the 14 tiles: the tile picker, typed tiles, groups, exposures and jokers;
//   card.js   a hand picked from the league's card;
//   check.js  every change checked by the engine and priced before Save is enabled;
//   queue.js  saved games sent in order, each with its own idempotency key, and what the
//             server answered (stored, refused, number taken, night closed);
//   entry.js  who won and how, the game being entered, Save, and fixing a refused game.
//
// A game is entered with as few taps as the table allows: who won, how, the 14 tiles (or a line
// picked from the card), Save. A service worker (/sw.js) keeps the page and these modules so the
// screen opens without network.
import { nightPage } from "./score/night.js";
import { screen } from "./score/entry.js";
import { bar } from "./score/bar.js";
import { hand } from "./score/hand.js";
import { fromCard } from "./score/card.js";
import { checking } from "./score/check.js";
import { sending } from "./score/queue.js";

/** Every module of the scoring screen, for the service worker to keep. */
const MODULES = ["night", "entry", "bar", "hand", "card", "check", "queue", "store"]
  .map((m) => "/static/score/" + m + ".js");

nightPage(["/static/style.css", "/static/score.js"].concat(MODULES));

const form = document.getElementById("score");
if (form) {
  // One object holds what the screen shares: the table, the game being entered, and each
  // module's functions, so modules call one another through it at the time of the call.
  const s = screen(form);
  bar(s);
  hand(s);
  fromCard(s);
  checking(s);
  sending(s);
  s.start();
}
