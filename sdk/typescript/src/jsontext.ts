// The JSON text checks of lookups: what the service's strict JSON reader refuses (nesting,
// NUL characters, lone surrogates, values that are not JSON), reasons worded as Go words them
// (goQuote, utf8Length), and reading own members of JSON objects.

/** The nesting depth of objects and arrays that the service's strict JSON reader admits. */
export const MAX_DEPTH = 256;

export type JSONObject = { [key: string]: unknown };

// checkJSON refuses what the service's strict JSON reader refuses in a lookup and what has no
// JSON form: nesting deeper than MAX_DEPTH, NUL characters and lone surrogates in strings and
// keys, numbers that are not finite, and values that are not JSON (undefined, functions,
// class instances, cycles). It returns the reason with the JSON pointer of the place, or "".
export function checkJSON(root: unknown): string {
  const stack: { v: unknown; path: string; depth: number }[] = [{ v: root, path: "", depth: 0 }];
  while (stack.length > 0) {
    const { v, path, depth } = stack.pop()!;
    const at = (reason: string) => `invalid JSON at ${path === "" ? "the top level" : path}: ${reason}`;
    switch (typeof v) {
      case "string": {
        const bad = badText(v, "a string");
        if (bad !== "") {
          return at(bad);
        }
        continue;
      }
      case "number":
        if (!Number.isFinite(v)) {
          return at(`${v} is not a JSON number`);
        }
        continue;
      case "boolean":
        continue;
      case "object":
        break;
      default:
        return at(`a value of type ${typeof v} is not JSON`);
    }
    if (v === null) {
      continue;
    }
    if (depth + 1 > MAX_DEPTH) {
      return at(`nesting deeper than ${MAX_DEPTH} levels`);
    }
    if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) {
        stack.push({ v: v[i], path: `${path}/${i}`, depth: depth + 1 });
      }
      continue;
    }
    const proto = Object.getPrototypeOf(v);
    if (proto !== Object.prototype && proto !== null) {
      return at("an instance of a class is not a JSON value");
    }
    const keys = Object.keys(v);
    for (let i = keys.length - 1; i >= 0; i--) {
      const k = keys[i]!;
      const bad = badText(k, "an object key");
      if (bad !== "") {
        return at(bad);
      }
      stack.push({ v: (v as JSONObject)[k], path: `${path}/${escapePointerToken(k)}`, depth: depth + 1 });
    }
  }
  return "";
}

// badText returns why text cannot be in a lookup, worded as the service's strict JSON reader
// words it, or "".
function badText(s: string, what: "a string" | "an object key"): string {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 0) {
      return `NUL character (\\u0000) in ${what}`;
    }
    if (c >= 0xd800 && c <= 0xdbff) {
      const next = i + 1 < s.length ? s.charCodeAt(i + 1) : 0;
      if (next < 0xdc00 || next > 0xdfff) {
        return `unpaired UTF-16 surrogate \\u${c.toString(16).padStart(4, "0")} in ${what}`;
      }
      i++;
    } else if (c >= 0xdc00 && c <= 0xdfff) {
      return `unpaired UTF-16 surrogate \\u${c.toString(16).padStart(4, "0")} in ${what}`;
    }
  }
  return "";
}

function escapePointerToken(k: string): string {
  return k.replaceAll("~", "~0").replaceAll("/", "~1");
}

export function isObject(v: unknown): v is JSONObject {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

// own reads an own member of an object: inherited members (toString, constructor...) are not
// members of JSON data.
export function own(m: JSONObject, key: string): unknown {
  return Object.hasOwn(m, key) ? m[key] : undefined;
}

export function utf8Length(s: string): number {
  return new TextEncoder().encode(s).length;
}

// goQuote writes s as Go's %q (strconv.Quote) does: in double quotes, '"' and '\\' escaped,
// \a \b \f \n \r \t \v, other control characters as \x.., characters that are not printable
// (not a letter, mark, number, punctuation or symbol) as \u.... or \U........, the rest as is.
export function goQuote(s: string): string {
  const named: Record<string, string> = { "\u0007": "\\a", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t", "\u000b": "\\v" };
  const printable = /^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u;
  let out = '"';
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    if (ch === '"' || ch === "\\") {
      out += "\\" + ch;
    } else if (named[ch] !== undefined) {
      out += named[ch];
    } else if (c < 0x20 || c === 0x7f) {
      out += "\\x" + c.toString(16).padStart(2, "0");
    } else if (printable.test(ch)) {
      out += ch;
    } else if (c < 0x10000) {
      out += "\\u" + c.toString(16).padStart(4, "0");
    } else {
      out += "\\U" + c.toString(16).padStart(8, "0");
    }
  }
  return out + '"';
}
