// Tag watches (docs/webhooks.md): a subscription to every registry with a tag, in any
// namespace, and to their records.

package store

import (
	"slices"

	"gorm.io/gorm"

	"github.com/svc-directory/svc/directory"
)

// isRegistryTag reports whether tag is a registry tag (a tag watch's target).
func isRegistryTag(tag string) bool {
	return slices.Contains([]string{directory.TagCustom, directory.TagMembership, directory.TagPublicKey, directory.TagRevoke}, tag)
}

// registryTags reads the tag of each registry the events are of, when a tag subscription is
// among subs (nil otherwise).
func registryTags(tx *gorm.DB, events []WatchEvent, subs []subscriptionRow) (map[string]string, error) {
	if !slices.ContainsFunc(subs, func(s subscriptionRow) bool { return s.WatchType == WatchTag }) {
		return nil, nil
	}
	var ids []string
	seen := map[string]bool{}
	for _, e := range events {
		if e.RegistryID != "" && !seen[e.RegistryID] {
			seen[e.RegistryID] = true
			ids = append(ids, e.RegistryID)
		}
	}
	if len(ids) == 0 {
		return nil, nil
	}
	var rows []struct {
		RegistryID string `gorm:"column:registry_id"`
		Tag        string `gorm:"column:tag"`
	}
	if err := tx.Raw(`SELECT registry_id, tag FROM registries WHERE registry_id IN ?`, ids).Scan(&rows).Error; err != nil {
		return nil, translate(err, "registry tags")
	}
	tags := make(map[string]string, len(rows))
	for _, r := range rows {
		tags[r.RegistryID] = r.Tag
	}
	return tags, nil
}
