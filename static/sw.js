// The service worker of the scoring screen: the pages a scorer opened (scoring screens and
// nights) and the assets are kept, and served from here when the network is away, so a
// tablet that lost its Wi-Fi still opens the screen and keeps entering games (score/queue.js
// queues them). Online, everything comes from the network first; nothing else is kept.
// Logging out (the page's form or the API) forgets every kept page at once, so the next person
// at a shared tablet sees no members-only page, online or not; only the assets stay.
"use strict";

const CACHE = "mahjong-league-v6";
/** The scoring screen's assets: the page's module and the modules it imports. */
const ASSETS = ["/static/style.css", "/static/keep.js", "/static/score.js"].concat(
  ["night", "entry", "bar", "hand", "card", "check", "queue", "store"].map((m) => "/static/score/" + m + ".js"));

/** Bumped by every log-out: a page fetched before it and stored after it is deleted again. */
let generation = 0;

/** Stores a response fetched at `at` unless a log-out came meanwhile (then it is dropped, even
 * when the log-out's forgetting ran while this was being written). */
function keep(c, href, res, at) {
  if (at !== generation) return null;
  return c.put(href, res).then(() => (at !== generation ? c.delete(href) : null));
}

function keepable(url) {
  return url.origin === self.location.origin &&
    (/^\/tables\/\d+\/score$/.test(url.pathname) || /^\/nights\/\d+$/.test(url.pathname) ||
     url.pathname.startsWith("/static/") || url.pathname.startsWith("/api/v1/cards/"));
}

self.addEventListener("install", (event) => {
  event.waitUntil(caches.open(CACHE).then((c) => c.addAll(ASSETS)).then(() => self.skipWaiting()));
});

self.addEventListener("activate", (event) => {
  event.waitUntil(caches.keys()
    .then((keys) => Promise.all(keys.filter((k) => k !== CACHE).map((k) => caches.delete(k))))
    .then(() => self.clients.claim()));
});

// A page asks for its own address and assets to be kept (its first load was not yet ours).
self.addEventListener("message", (event) => {
  const urls = (event.data && event.data.keep) || [];
  const at = generation;
  event.waitUntil(caches.open(CACHE).then((c) => Promise.all(urls
    .map((u) => new URL(u, self.location.origin))
    .filter(keepable)
    .map((u) => fetch(u, { credentials: "same-origin" }).then((res) => res.ok ? keep(c, u.href, res, at) : null).catch(() => null)))));
});

function offline() {
  return new Response(
    "<!doctype html><html lang=\"en\"><meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">" +
    "<title>Offline</title><link rel=\"stylesheet\" href=\"/static/style.css\"><main id=\"main\"><h1>No network</h1>" +
    "<p>This page was not opened on this device while online, so it cannot be shown now. Scoring screens opened before " +
    "work without network; their games are kept on the device and sent when it is back.</p></main></html>",
    { status: 503, headers: { "Content-Type": "text/html; charset=utf-8", "Retry-After": "5" } });
}

/** Drops every kept page and card, keeping the assets. */
function forgetPages() {
  return caches.open(CACHE).then((c) => c.keys().then((reqs) => Promise.all(reqs
    .filter((r) => !new URL(r.url).pathname.startsWith("/static/"))
    .map((r) => c.delete(r)))));
}

function loggingOut(req, url) {
  return url.origin === self.location.origin &&
    ((req.method === "POST" && url.pathname === "/logout") ||
     (req.method === "DELETE" && url.pathname === "/api/v1/session"));
}

self.addEventListener("fetch", (event) => {
  const req = event.request;
  const url = new URL(req.url);
  if (loggingOut(req, url)) {
    // Forgotten whether or not the network is there; the request itself goes on as usual.
    generation += 1;
    event.waitUntil(forgetPages());
    return;
  }
  if (req.method !== "GET") return;
  if (url.origin !== self.location.origin) return;
  if (!keepable(url)) {
    if (req.mode === "navigate") event.respondWith(fetch(req).catch(offline));
    return;
  }
  const at = generation;
  event.respondWith(fetch(req).then((res) => {
    if (res.ok) {
      const copy = res.clone();
      event.waitUntil(caches.open(CACHE).then((c) => keep(c, url.href, copy, at)));
    }
    return res;
  }).catch(() => caches.match(url.href).then((hit) => hit || (req.mode === "navigate" ? offline() : Response.error()))));
});
