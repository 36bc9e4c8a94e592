package proof

// ParseJSONEach is ParseJSON for a large document whose bulk is one array, so that the caller
// need not hold all of it as Go values at once: when the text is an object whose member named
// member is an array, the elements of that array are not kept. Each is parsed as ParseJSON
// parses it (with the same refusals, named by the same pointers) and given to each, in order,
// with the byte span of its text, data[start:end]; in the value returned the member reads as
// an empty array, and deferred is true. Any other text is parsed exactly as by ParseJSON, and
// deferred is false.
//
// An element's text parses again on its own, by ParseJSON with the same maxDepth, into the
// same value.
func ParseJSONEach(data []byte, maxDepth int, member string, each func(i int, v any, start, end int)) (v any, deferred bool, err error) {
	p := parser{data: data, maxDepth: maxDepth, each: each, eachMember: member}
	v, err = p.document()
	if err != nil {
		return nil, false, err
	}
	return v, p.deferred, nil
}

// eachArray is array for the member that ParseJSONEach defers: it is found inside depth
// objects (the top-level one).
func (p *parser) eachArray(depth int) (any, error) {
	if depth >= p.maxDepth {
		return nil, p.fail("nesting deeper than %d levels", p.maxDepth)
	}
	depth++
	p.deferred = true
	return p.elements(depth, p.each)
}
