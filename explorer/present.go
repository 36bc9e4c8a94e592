package explorer

import (
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// The present (docs/explorer.md, "Current or superseded"): whether the version a page shows is
// its entry's latest logged version, as the serving state index says (GET /svc/log/state/{id},
// docs/state-index.md); and what a person must know of the entry's latest state (revoked,
// suspended) whatever version the page shows. The page says it; the verify button proves it in
// the browser.

// present is what an entry page says of the version it shows.
type present struct {
	Known   bool   // the state query answered
	Problem string // why it did not (the index catching up, say)
	Size    int64  // the size N of the checkpoint the answer is proven against
	// Shown is the version_count k of the version shown, Total the newest m (the entry's latest
	// version, logged or not), Latest the version_count n of the latest logged version (0: none).
	Shown, Total, Latest int64
	LatestVersion        string
	LatestHref           string // the page of the latest version
	Current              bool
	Superseded           bool
	NotLogged            bool // the version shown is not in the log as of N (published since)
}

// stateOf reads the state answer of an entry id and says where the version shown stands;
// total is the version_count of the entry's latest version as its lookup says.
func (x *Explorer) stateOf(r *http.Request, id, version string, shown, total int64) (present, link) {
	p := present{Shown: shown, Total: max(total, shown)}
	a := x.get(r, "/svc/log/state/"+apiSeg(id))
	l := link{"State query (is this the latest version?)", a.Path}
	if a.Status != http.StatusOK && a.Status != http.StatusNotFound || a.Body == nil {
		p.Problem = a.message()
		if p.Problem == "" {
			p.Problem = "the directory answered " + http.StatusText(a.Status)
		}
		return p, l
	}
	cp, _ := a.Body["checkpoint"].(string)
	c, ok := parseCheckpoint(cp)
	if !ok {
		// Not a state answer (a 404 of a path the API does not serve, say).
		p.Problem = a.message()
		if p.Problem == "" {
			p.Problem = "the state answer names no checkpoint"
		}
		return p, l
	}
	p.Size, _ = strconv.ParseInt(c.Size, 10, 64)
	p.Known = true
	if present, _ := a.Body["present"].(bool); !present {
		p.NotLogged = true
		return p, l
	}
	latest, _ := a.Body["latest"].(map[string]any)
	text, _ := latest["leaf"].(string)
	var lf struct {
		Version      string `json:"version"`
		VersionCount int64  `json:"version_count"`
	}
	if err := json.Unmarshal([]byte(text), &lf); err != nil {
		p.Known, p.Problem = false, "the state answer's latest leaf is not a version's"
		return p, l
	}
	p.Latest, p.LatestVersion = lf.VersionCount, lf.Version
	p.Total = max(p.Total, p.Latest)
	switch {
	case lf.Version == version:
		p.Current = true
	case lf.VersionCount > shown:
		p.Superseded = true
	default:
		p.NotLogged = true
	}
	return p, l
}

// notice is what a person must know of an entry's latest state, in plain words ("" kind: none).
type notice struct {
	Kind string // revoked, suspended, registry-revoked, gone (the latest cannot be read)
	When string // the time of the version that made it so (gone: the API's message)
	Old  bool   // the page shows an older version than the one that made it so
	Reg  string // the registry's name (registry-revoked)
}

// recordNotice reads the record's latest version (its lookup data) against the version shown.
func recordNotice(latest map[string]any, shownVersion string) notice {
	if latest == nil {
		return notice{}
	}
	n := notice{When: when(latest["updated_at"]), Old: str(latest["version"]) != shownVersion, Reg: str(latest["registry_name"])}
	switch {
	case str(latest["state"]) == "revoked":
		n.Kind = "revoked"
	case str(latest["registry_state"]) == "revoked":
		n.Kind, n.When = "registry-revoked", ""
	case str(latest["state"]) == "suspended":
		n.Kind = "suspended"
	}
	return n
}

// when formats an API timestamp for people ("28 November 2026, 17:20 UTC"); as given when it is
// not one.
func when(v any) string {
	s := str(v)
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return s
	}
	return t.UTC().Format("2 January 2006, 15:04 UTC")
}

// hexRoot is a checkpoint's base64 root hash in hex ("" when it is not base64 of 32 bytes).
func hexRoot(b64 string) string {
	b, err := base64.StdEncoding.DecodeString(strings.TrimSpace(b64))
	if err != nil || len(b) != 32 {
		return ""
	}
	return hex.EncodeToString(b)
}
