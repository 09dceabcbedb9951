// Package style holds the stylesheet of rpcbench's HTML pages (colours, cards, tables, notes), so
// that every page looks alike: the run reports of package report and the pages of diff and
// capacity, which import this package and not report. Classes it styles include table.num
// (right-aligned figures), tr.total, td.bad, .notes, .hint, .figures and .figure.
package style

import _ "embed"

// CSS is the stylesheet, to put in a page's <style> element.
//
//go:embed page.css
var CSS string
