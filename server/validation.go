package server

import (
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
)

// How a request that the contract refuses is described to its client.

// describeValidation turns a kin-openapi error into the "<what>" of "Invalid input: <what>",
// naming the parameter or the body field and never echoing the value.
func describeValidation(err error, op *operation) string {
	var re *openapi3filter.RequestError
	if !errors.As(err, &re) {
		return "request does not match the contract"
	}
	var se *openapi3.SchemaError
	hasSchemaErr := errors.As(re.Err, &se)
	switch {
	case re.Parameter != nil:
		what := fmt.Sprintf("%s parameter %s", re.Parameter.In, re.Parameter.Name)
		if hasSchemaErr {
			return what + ": " + se.Reason
		}
		if errors.Is(re.Err, openapi3filter.ErrInvalidRequired) {
			return what + " is required"
		}
		var pe *openapi3filter.ParseError
		if errors.As(re.Err, &pe) {
			return what + ": " + pe.Reason
		}
		return what + " is invalid"
	case re.RequestBody != nil:
		if errors.Is(re.Err, openapi3filter.ErrInvalidRequired) || strings.Contains(re.Reason, "required but missing") {
			// An absent body of an operation whose body has one required field reads as that field missing
			// ("Invalid input: namespace_lookup_response is missing").
			if only := soleRequiredProperty(op); only != "" {
				return only + " is missing"
			}
			return "request body is missing"
		}
		if hasSchemaErr {
			ptr := se.JSONPointer()
			if m := missingProperty.FindStringSubmatch(se.Reason); m != nil {
				return fieldPath(ptr, m[1]) + " is missing"
			}
			if m := unsupportedProperty.FindStringSubmatch(se.Reason); m != nil {
				return fieldPath(ptr, m[1]) + " is not a known field"
			}
			if len(ptr) == 0 {
				return "request body: " + se.Reason
			}
			return strings.Join(ptr, ".") + ": " + se.Reason
		}
		if re.Reason != "" {
			return "request body: " + re.Reason
		}
		return "request body is invalid"
	}
	if re.Reason != "" {
		return re.Reason
	}
	return "request does not match the contract"
}

var (
	missingProperty     = regexp.MustCompile(`^property "([^"]+)" is missing$`)
	unsupportedProperty = regexp.MustCompile(`^property "([^"]+)" is unsupported$`)
)

// fieldPath joins a body path with the property an error names (kin-openapi puts the property
// at the end of the pointer for some errors and not for others).
func fieldPath(ptr []string, prop string) string {
	if len(ptr) == 0 || ptr[len(ptr)-1] != prop {
		ptr = append(ptr, prop)
	}
	return strings.Join(ptr, ".")
}

func soleRequiredProperty(op *operation) string {
	rb := op.route.Operation.RequestBody
	if rb == nil || rb.Value == nil {
		return ""
	}
	mt := rb.Value.Content.Get("application/json")
	if mt == nil || mt.Schema == nil || mt.Schema.Value == nil {
		return ""
	}
	req := append([]string(nil), mt.Schema.Value.Required...)
	sort.Strings(req)
	if len(req) == 1 {
		return req[0]
	}
	return ""
}
