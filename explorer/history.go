package explorer

import (
	"net/http"
	"net/url"
	"strconv"
)

// A record's version history: its public versions, newest first (GET /svc/versions/...), a
// page of historyPerPage at a time, each with its number, its date and its state, read from the
// version's own lookup (GET /svc/lookup/...?version_id=): the versions list names ids only.

const historyPerPage = 10

// historyItem is one version in the history.
type historyItem struct {
	Version string
	Count   int64  // its version_count
	Date    string // when it was made, for people
	Stamp   string // the same, as the API gives it (the <time> element's datetime)
	State   string
	Shown   bool
}

type history struct {
	Items []historyItem
	Pager pager
}

// historyPage reads page n (?history=n) of the versions ids lists, each version's lookup
// under base (the record's lookup path); shown is the version the page shows, whose lookup
// data it has already.
func (x *Explorer) historyPage(r *http.Request, base string, ids []string, shown string, shownData map[string]any) history {
	n, _ := strconv.Atoi(r.URL.Query().Get("history"))
	pages := max((len(ids)+historyPerPage-1)/historyPerPage, 1)
	if n < 1 || n > pages {
		n = 1
	}
	h := history{Pager: pager{Page: n, Pages: pages}}
	at := func(k int) string {
		q := r.URL.Query()
		q.Set("history", strconv.Itoa(k))
		return r.URL.Path + "?" + q.Encode() + "#versions-h"
	}
	if n > 1 {
		h.Pager.Prev = at(n - 1)
	}
	if n < pages {
		h.Pager.Next = at(n + 1)
	}
	end := min(n*historyPerPage, len(ids))
	for _, id := range ids[(n-1)*historyPerPage : end] {
		it := historyItem{Version: id, Shown: id == shown}
		d := shownData
		if !it.Shown {
			d = x.get(r, base+"?version_id="+url.QueryEscape(id)).data()
		}
		if d != nil {
			it.Count, it.Stamp, it.State = num(d["version_count"]), str(d["updated_at"]), str(d["state"])
			it.Date = when(d["updated_at"])
		}
		h.Items = append(h.Items, it)
	}
	return h
}
