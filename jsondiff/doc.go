// Package jsondiff compares two JSON documents structurally and says where they differ: the path
// of each difference (result.transactions[3].hash), the kind of difference (a changed value, a
// changed type, a member or element present on one side only) and both values. Rules make the
// comparison useful for answers of two implementations of one API: integers written in hex and in
// decimal compare equal ("0x1a" = 26), null may stand for a missing member, paths may be ignored
// or compared as unordered arrays (patterns with * and [*] wildcards), numbers at some paths may
// differ within an absolute or relative tolerance (result.gasPrice=5%), JSON-RPC error messages are
// dropped but their codes kept, and a shape-only mode compares types and members, not values.
// What clients read differently is never equal: a member named twice in an object is a
// difference unless the other side names it alike, and a string whose bytes are not UTF-8 is
// compared as bytes, so that it never equals the U+FFFD a decoder would put in their place.
//
// It sits beside check in the flow, after transport: it reads answer bodies and imports nothing
// from the project but internal/jsonscan, so any package can use it. The diff package sends requests to several
// servers and uses it to compare their answers.
package jsondiff
