package report

// HTMLStyle is the stylesheet of the report's HTML pages (colours, cards, tables, notes), for
// other pages of the project, such as diff's, to look like them. Classes it styles include
// table.num (right-aligned figures), tr.total, td.bad, .notes, .hint, .figures and .figure.
func HTMLStyle() string { return pageCSS }
