// The API promise, checked with a maintained classifier (api-smart-diff, from npm): every change
// from the released document (openapi/released/v1.json) to the served one is classified, and a
// breaking one fails. First the check is shown to see each kind of break apps meet — a broken
// copy of the released document per kind must be refused — and to let harmless changes through.
//
//   node scripts/api-breaks.mjs <released.json> <served.json>
//
// Rule for enums: a value added to an enum an app *sends* is harmless; a value added to an enum
// an app *reads* is breaking (a strictly typed app switches on every value it knows); a value
// gone is breaking either way.
import fs from "node:fs";
import { apiCompare } from "api-smart-diff";

const [releasedPath, servedPath] = process.argv.slice(2);
const released = JSON.parse(fs.readFileSync(releasedPath, "utf8"));
const served = JSON.parse(fs.readFileSync(servedPath, "utf8"));
const copy = () => structuredClone(released);
const schema = (d, name) => d.components.schemas[name];
const op = (d, path, method) => d.paths[path][method];

// Each kind of break, and a copy of the released document that makes it.
const BREAKS = [
  ["request: a new required field", (d) => { schema(d, "NewPlayer").properties.nickname = { type: "string" }; schema(d, "NewPlayer").required.push("nickname"); }],
  ["request: a field's type tightened", (d) => { schema(d, "NewPlayer").properties.name.type = "integer"; }],
  ["request: a tighter length limit", (d) => { schema(d, "NewPlayer").properties.name.maxLength = 20; }],
  ["request: a tighter number limit", (d) => { op(d, "/api/v1/leagues/{league}/games", "get").parameters.find((p) => p.name === "limit").schema.maximum = 100; }],
  ["request: a pattern added", (d) => { schema(d, "LeagueInput").properties.name = { ...(schema(d, "LeagueInput").properties.name || { type: "string" }), pattern: "^[A-Z]" }; }],
  ["request: a format added", (d) => { schema(d, "NewPlayer").properties.name.format = "email"; }],
  ["request: an enum value gone", (d) => { schema(d, "SetRole").properties.role.enum = ["owner", "organizer", "member"]; }],
  ["request: no longer nullable", (d) => { const p = schema(d, "LeagueInput").properties; const k = Object.keys(p).find((k) => Array.isArray(p[k].type) && p[k].type.includes("null")); p[k].type = p[k].type.filter((t) => t !== "null"); }],
  ["request: a content type gone", (d) => { const b = op(d, "/api/v1/clubs/{club}/players", "post").requestBody.content; b["application/xml"] = b["application/json"]; delete b["application/json"]; }],
  ["request: credentials needed for a public read", (d) => { op(d, "/api/v1/leagues/{league}/standings", "get").security = [{ bearer: [] }]; }],
  ["response: a field gone", (d) => { delete schema(d, "Player").properties.name; schema(d, "Player").required = schema(d, "Player").required.filter((f) => f !== "name"); }],
  ["response: a field made optional", (d) => { schema(d, "Player").required = schema(d, "Player").required.filter((f) => f !== "active"); }],
  ["response: a field made nullable", (d) => { schema(d, "Player").properties.active.type = ["boolean", "null"]; }],
  ["response: a field's type changed", (d) => { schema(d, "Player").properties.id.type = "string"; }],
  ["response: an enum value added", (d) => { schema(d, "Game").properties.outcome.enum.push("abandoned"); }],
  ["response: an enum value gone", (d) => { schema(d, "Game").properties.outcome.enum = ["mahjong", "wall"]; }],
  ["response: a header gone", (d) => { delete op(d, "/api/v1/leagues/{league}/standings", "get").responses["200"].headers.ETag; }],
  ["response: a status code gone", (d) => { delete op(d, "/api/v1/leagues/{league}/standings", "get").responses["304"]; }],
  ["parameter: moved from query to header", (d) => { op(d, "/api/v1/leagues/{league}/games", "get").parameters.find((p) => p.name === "cursor").in = "header"; }],
  ["parameter: made required", (d) => { op(d, "/api/v1/leagues/{league}/games", "get").parameters.find((p) => p.name === "cursor").required = true; }],
  ["parameter: a new required one", (d) => { op(d, "/api/v1/leagues/{league}/games", "get").parameters.push({ name: "season", in: "query", required: true, schema: { type: "integer" } }); }],
  ["parameter: its default changed", (d, before) => {
    const limit = (x) => op(x, "/api/v1/leagues/{league}/games", "get").parameters.find((p) => p.name === "limit");
    limit(before).schema.default = 50;
    limit(d).schema.default = 10;
  }],
  ["a path gone", (d) => { delete d.paths["/api/v1/clubs/{club}/players"]; }],
  ["an operation gone", (d) => { delete d.paths["/api/v1/clubs/{club}/players"].post; }],
];

// Changes that break nobody: each must pass.
const HARMLESS = [
  ["a new path", (d) => { d.paths["/api/v1/new-thing"] = { get: structuredClone(op(d, "/api/v1/leagues/{league}/standings", "get")) }; d.paths["/api/v1/new-thing"].get.operationId = "new_thing"; }],
  ["a new optional request field", (d) => { schema(d, "NewPlayer").properties.nickname = { type: "string" }; }],
  ["a new response field", (d) => { schema(d, "Player").properties.nickname = { type: ["string", "null"] }; }],
  ["a request enum value added", (d) => { schema(d, "NewLeague").properties.kind.enum.push("ladder"); }],
  ["a request limit relaxed", (d) => { schema(d, "NewPlayer").properties.name.maxLength = 200; }],
  ["a parameter's default written down", (d) => { op(d, "/api/v1/leagues/{league}/games", "get").parameters.find((p) => p.name === "limit").schema.default = 50; }],
  ["a description changed", (d) => { op(d, "/api/v1/leagues/{league}/standings", "get").summary = "The standings, said again."; }],
];

/** What the tool does not classify: a parameter's default changed or gone (an app that leaves
 * the parameter out gets another answer than yesterday). */
function defaultsChanged(before, after) {
  const found = [];
  for (const [path, ops] of Object.entries(before.paths || {})) {
    for (const [method, o] of Object.entries(ops || {})) {
      for (const p of o.parameters || []) {
        const now = (after.paths?.[path]?.[method]?.parameters || []).find((q) => q.name === p.name && q.in === p.in);
        const was = p.schema?.default;
        const is = now?.schema?.default;
        // A default written down where there was none says what the service did already.
        if (now && was !== undefined && JSON.stringify(was) !== JSON.stringify(is)) {
          found.push(`replace ${path} ${method} parameter ${p.name}: default ${JSON.stringify(was)} → ${JSON.stringify(is)}`);
        }
      }
    }
  }
  return found;
}

/** The breaking changes from `before` to `after`, in words (the tool is given copies: it may
 * resolve references in what it is given). */
function breaking(before, after) {
  const { diffs } = apiCompare(structuredClone(before), structuredClone(after));
  return diffs
    .filter((d) => d.type === "breaking")
    .map((d) => `${d.action} ${d.path.join("/")}${d.description ? ": " + d.description : ""}`)
    .concat(defaultsChanged(before, after));
}

let wrong = 0;
for (const [kind, make] of BREAKS) {
  const [before, d] = [copy(), copy()];
  make(d, before);
  const found = breaking(before, d);
  console.log(`${found.length ? "refused" : "MISSED "}  ${kind}${found.length ? "" : " (no breaking change found)"}`);
  if (!found.length) wrong++;
}
for (const [kind, make] of HARMLESS) {
  const d = copy();
  make(d, copy());
  const found = breaking(released, d);
  console.log(`${found.length ? "REFUSED" : "passed "}  ${kind}${found.length ? ": " + found.join("; ") : ""}`);
  if (found.length) wrong++;
}
const now = breaking(released, served);
if (now.length) {
  console.error("api-breaks: the served document breaks /api/v1 as released:");
  for (const b of now) console.error("  - " + b);
  wrong++;
}
if (wrong) {
  console.error(`api-breaks: ${wrong} wrong`);
  process.exit(1);
}
const { diffs } = apiCompare(copy(), structuredClone(served));
console.log(`api-breaks: ${BREAKS.length} kinds of break refused, ${HARMLESS.length} harmless changes passed; the served document: ${diffs.filter((d) => d.type === "non-breaking").length} additions, no break`);
