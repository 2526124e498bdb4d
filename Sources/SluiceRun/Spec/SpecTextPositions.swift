/// Maps between 1-based line/column positions (as libyaml counts them: columns in Unicode
/// scalars; `\n`, `\r`, `\r\n`, U+0085, U+2028 and U+2029 end a line) and offsets in a text.
package struct SpecTextPositions {
    package let scalars: [Unicode.Scalar]
    /// Scalar offset where each line starts; never empty.
    package private(set) var lineStarts: [Int] = [0]

    package init(_ text: String) {
        scalars = Array(text.unicodeScalars)
        var i = 0
        while i < scalars.count {
            let c = scalars[i]
            if c == "\r", i + 1 < scalars.count, scalars[i + 1] == "\n" {
                i += 2
                lineStarts.append(i)
            } else if c == "\n" || c == "\r" || c == "\u{85}" || c == "\u{2028}" || c == "\u{2029}" {
                i += 1
                lineStarts.append(i)
            } else {
                i += 1
            }
        }
    }

    /// Lines a text editor shows: a final line break does not start another line.
    package var lineCount: Int {
        if lineStarts.count > 1, lineStarts[lineStarts.count - 1] == scalars.count {
            return lineStarts.count - 1
        }
        return lineStarts.count
    }

    /// The scalar offset of `line:column`, if it lies inside the text (or at its very end).
    package func offset(line: Int, column: Int) -> Int? {
        guard line >= 1, line <= lineStarts.count, column >= 1 else { return nil }
        let offset = lineStarts[line - 1] + (column - 1)
        let lineEnd = line < lineStarts.count ? lineStarts[line] : scalars.count
        guard offset <= lineEnd, offset <= scalars.count else { return nil }
        return offset
    }

    /// The 1-based line and column of a scalar offset (clamped into the text).
    package func position(ofOffset offset: Int) -> (line: Int, column: Int) {
        let (line, column) = rawPosition(ofOffset: offset)
        return clamp(line: line, column: column)
    }

    private func rawPosition(ofOffset offset: Int) -> (line: Int, column: Int) {
        let offset = max(0, min(offset, scalars.count))
        var low = 0, high = lineStarts.count - 1
        while low < high {
            let mid = (low + high + 1) / 2
            if lineStarts[mid] <= offset { low = mid } else { high = mid - 1 }
        }
        return (low + 1, offset - lineStarts[low] + 1)
    }

    /// Offset just after the last character that is not white space or a line break.
    private var contentEnd: Int {
        var end = scalars.count
        while end > 0, [" ", "\t", "\n", "\r", "\u{85}", "\u{2028}", "\u{2029}"].contains(scalars[end - 1]) {
            end -= 1
        }
        return end
    }

    /// Moves a position in the trailing white space of the text, or past its end (libyaml
    /// reports "end of input" there), to just after the last character, so every diagnostic
    /// names a line the file has and points where the problem shows.
    package func clamp(line: Int, column: Int) -> (line: Int, column: Int) {
        guard line >= 1 else { return (1, 1) }
        let end = contentEnd
        if let offset = offset(line: line, column: max(1, column)) {
            return offset > end ? rawPosition(ofOffset: end) : (line, max(1, column))
        }
        if line > lineStarts.count || (line == lineStarts.count && line > lineCount) {
            return rawPosition(ofOffset: end)
        }
        return (line, max(1, column))
    }
}
