package explorer

import (
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"strconv"

	"github.com/svc-directory/svc/directory"
)

// The registry page: the registry, its schema and its records. With nothing searched the records
// are the registry's list (GET /svc/query/{namespace}/{registry}: exact totals, every page as
// cheap as the first); a record name, a state or a details field searches them through the
// details search (GET /svc/search/{namespace}, registry_name the registry's). A registry whose
// query_allowed is false is neither listed nor searched by the API for anonymous readers, so its
// page says so and offers to go to a record by its exact name (a lookup, which stays public).

// recordsPerPage is the registry page's page size.
const recordsPerPage = 50

// recordStates are the states a person can filter by: those a record shown to an anonymous
// reader can read as (drafts are never shown, deleted records are missing).
var recordStates = []string{"live", "suspended", "revoked", "expired", "stale", "withdrawn"}

// recordSearch is what the person asked for in the registry page's form.
type recordSearch struct {
	Name, State, Field, Value string
}

func (s recordSearch) given() bool {
	return s.Name != "" || s.State != "" || s.Field != "" || s.Value != ""
}

// problem is the form's fault in s, in words ("" when it can be searched).
func (s recordSearch) problem() string {
	switch {
	case s.State != "" && !slices.Contains(recordStates, s.State):
		return "There is no state “" + s.State + "”: choose one of the list."
	case (s.Field == "") != (s.Value == ""):
		return "Give both a details field (its path, such as address.city) and the text its value contains, or neither."
	case directory.IsSearchParam(s.Field):
		return "“" + s.Field + "” is a parameter of the search itself, so a details field of that name cannot be searched."
	}
	return ""
}

// apiQuery is the search's query string for the registry reg, page n.
func (s recordSearch) apiQuery(reg string, n int) string {
	q := url.Values{}
	q.Set("registry_name", reg)
	if s.Name != "" {
		q.Set("record_name", s.Name)
	}
	if s.State != "" {
		q.Set("record_state", s.State)
	}
	if s.Field != "" {
		q.Set(s.Field, s.Value)
	}
	q.Set("page", strconv.Itoa(n))
	q.Set("page_size", strconv.Itoa(recordsPerPage))
	return q.Encode()
}

type registryData struct {
	Entry
	NS, Name string
	Schema   string
	Form     recordSearch
	States   []string
	Searched bool // the records are a search's results
	Closed   bool // query_allowed is false: not listed nor searched for anonymous readers
	Records  []map[string]any
	Total    int64
	Exact    bool // Total is exact (a search counts exactly up to 100)
	Mixed    bool // a result is of another registry whose name contains this one's
	Pager    pager
	Problem  string               // why the records could not be searched
	Scripts  []string             // the scripts the registry's name mixes
	Flags    map[string]nameFlags // the record names of the page that mix scripts or look alike
}

func (x *Explorer) registryPage(w http.ResponseWriter, r *http.Request, ns, reg string) {
	qs := r.URL.Query()
	if rec := qs.Get("record"); rec != "" {
		http.Redirect(w, r, Prefix+"/n/"+apiSeg(ns)+"/"+apiSeg(reg)+"/"+apiSeg(rec), http.StatusSeeOther)
		return
	}
	a := x.get(r, "/svc/lookup/"+apiSeg(ns)+"/"+apiSeg(reg))
	if a.Status != http.StatusOK {
		x.fail(w, r, a)
		return
	}
	d := registryData{Entry: x.entry(r, "registry", a), NS: ns, Name: reg, States: recordStates, Exact: true,
		Form: recordSearch{Name: qs.Get("name"), State: qs.Get("state"), Field: qs.Get("field"), Value: qs.Get("value")}}
	if s, err := json.MarshalIndent(d.Data["schema"], "", "  "); err == nil {
		d.Schema = string(s)
	}
	d.Closed = d.Data["query_allowed"] == false
	links := []link{{"Registry lookup", a.Path}}
	status := http.StatusOK
	n := pageNum(r)
	switch {
	case d.Closed:
	case d.Form.given():
		d.Searched = true
		if d.Problem = d.Form.problem(); d.Problem != "" {
			status = http.StatusBadRequest
			break
		}
		q := x.get(r, "/svc/search/"+apiSeg(ns)+"?"+d.Form.apiQuery(reg, n))
		switch q.Status {
		case http.StatusOK:
			d.Records, d.Total, d.Exact = list(q.Body["data"]), num(q.Body["total"]), q.Body["total_exact"] != false
			d.Pager = searchPager(r, n, d.Total, d.Exact, len(d.Records))
			for _, rec := range d.Records {
				d.Mixed = d.Mixed || str(rec["registry_name"]) != reg
			}
			links = append(links, link{"Record search", q.Path})
		case http.StatusBadRequest:
			status, d.Problem = http.StatusBadRequest, q.message()
		default:
			x.fail(w, r, q)
			return
		}
	default:
		q := x.get(r, "/svc/query/"+apiSeg(ns)+"/"+apiSeg(reg)+"?page_size="+strconv.Itoa(recordsPerPage)+"&page="+strconv.Itoa(n))
		if q.Status != http.StatusOK {
			x.fail(w, r, q)
			return
		}
		d.Records, d.Total = list(q.data()["records"]), num(q.data()["total_records"])
		d.Pager = newPager(r, n, d.Total, recordsPerPage)
		links = append(links, link{"Records", q.Path})
	}
	d.Scripts, d.Flags = directory.MixedScripts(reg), listFlags(namesOf(d.Records, "record_name"))
	links = append(links, d.StateLink, link{"Verifier key", "/svc/log/key"})
	x.render(w, r, status, "registry", page{Title: reg, Data: d, JSON: links})
}

// searchPager pages a search's results: with an exact total as any list; beyond the search's
// exact count (100) the number of pages is unknown, and a full page has a next one.
func searchPager(r *http.Request, n int, total int64, exact bool, got int) pager {
	if exact {
		return newPager(r, n, total, recordsPerPage)
	}
	p := newPager(r, n, 0, recordsPerPage)
	p.Pages = 0
	if got == recordsPerPage {
		p.Next = pageAt(r, n+1)
	}
	return p
}
