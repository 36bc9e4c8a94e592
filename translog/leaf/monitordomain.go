package leaf

import "fmt"

// Change is what a monitor reports of the leaves it checked: a KeyChange (a DeDi publisher's
// key set) or a BindingChange (a namespace gained or lost a verified domain).
type Change interface{ String() string }

// BindingChange is a domain leaf as a monitor reports it, with its log index.
type BindingChange struct {
	Index int64
	Leaf  DomainLeaf
}

func (c BindingChange) String() string {
	return fmt.Sprintf("domain %s %s by %s at leaf %d (%s, %s)",
		c.Leaf.Domain, c.Leaf.Change, c.Leaf.NamespaceID, c.Index, c.Leaf.Method, c.Leaf.Time)
}

// checkBinding checks a domain leaf against the bindings the state has seen and records it. A
// domain is held by one namespace at a time, and a namespace holds one domain at a time: a
// namespace may not gain a domain that another namespace (or itself) holds, nor gain one while
// it holds another, nor lose a domain that another namespace holds, nor lose one twice. A loss
// of a domain the state never saw gained is accepted once (a binding made before the service
// logged bindings); the domain is then known to be free.
func (s *MonitorState) checkBinding(idx int64, d DomainLeaf) error {
	if s.Domains == nil {
		s.Domains = map[string]string{}
	}
	holder, known := s.Domains[d.Domain]
	switch d.Change {
	case DomainGained:
		if holder != "" {
			return failf("leaf %d: %s gained %s, which %s holds", idx, d.NamespaceID, d.Domain, holder)
		}
		for other, h := range s.Domains {
			if h == d.NamespaceID {
				return failf("leaf %d: %s gained %s while it holds %s", idx, d.NamespaceID, d.Domain, other)
			}
		}
		s.Domains[d.Domain] = d.NamespaceID
	case DomainLost:
		switch {
		case holder != "" && holder != d.NamespaceID:
			return failf("leaf %d: %s lost %s, which %s holds", idx, d.NamespaceID, d.Domain, holder)
		case known && holder == "":
			return failf("leaf %d: %s lost %s, which nobody holds", idx, d.NamespaceID, d.Domain)
		}
		s.Domains[d.Domain] = ""
	}
	return nil
}
