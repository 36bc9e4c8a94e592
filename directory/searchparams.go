package directory

// searchParams are the details search's own parameters (GET /svc/search/{namespace}): every
// other parameter of its query is a path into a record's details.
var searchParams = map[string]bool{"registry_name": true, "record_name": true, "from": true, "to": true,
	"record_state": true, "page": true, "page_size": true}

// IsSearchParam reports whether name is one of the details search's own parameters, and so
// cannot name a details field in a search.
func IsSearchParam(name string) bool { return searchParams[name] }
