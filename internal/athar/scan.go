package athar

import "context"

type wholeScanKey struct{}

// WholeScan marks ctx as a read of the whole store (the text index's build,
// graph.BuildTextIndex; the store marks its own, Quads and the read model's rebuild): the
// store answers it as any read but adds nothing it reads to its node cache, which such a
// read would fill with values no request then asks for.
func WholeScan(ctx context.Context) context.Context {
	return context.WithValue(ctx, wholeScanKey{}, true)
}

// IsWholeScan reports whether ctx is marked by WholeScan.
func IsWholeScan(ctx context.Context) bool {
	b, _ := ctx.Value(wholeScanKey{}).(bool)
	return b
}
