# Rule files: installed under $(pkgdatadir)/rules, read from the source tree when run uninstalled.
rulesdir = $(pkgdatadir)/rules
dist_rules_DATA = \
	rules/KV001-sentinel-overflow.yaml \
	rules/KV002-sentinel-saturates.yaml \
	rules/KV003-id-inexact.yaml \
	rules/KV004-id-range-unknown.yaml \
	rules/KV005-scale-crushing.yaml \
	rules/KV006-construction-overflow.yaml \
	rules/KV007-sentinel-arithmetic.yaml \
	rules/KV008-kv-float16-on-bf16-model.yaml \
	rules/KV009-unknown-dtype-name.yaml \
	rules/KV010-unresolved-dtype.yaml \
	rules/KV011-unused-ignore.yaml \
	rules/KV012-value-overflow.yaml \
	rules/KV013-value-saturates.yaml \
	rules/KV014-dynamic-scale-flush.yaml
