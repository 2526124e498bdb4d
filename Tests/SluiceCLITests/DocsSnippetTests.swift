import Foundation
import SluiceTestSupport
import XCTest

/// Every shell command and every pipeline snippet in README.md and docs/*.md is run or
/// validated, the way rustdoc runs examples. The rules are written for doc writers at the top
/// of docs/README.md ("Writing docs: every snippet is tested"); this file enforces them. A
/// failure names the document and the line of the block.
final class DocsSnippetTests: XCTestCase {
    /// One fenced block: the document, the line of its opening fence (1-based), the info
    /// string, and its lines with the fence's indentation removed.
    struct Block {
        var document: String
        var line: Int
        var info: String
        var lines: [String]
        var place: String { "\(document):\(line)" }
        var text: String { lines.joined(separator: "\n") + "\n" }
    }

    static let knownInfo: Set = ["yaml", "yaml error", "sh", "console", "text", "swift"]
    /// Outside tools a command may name; they are accepted by name only.
    static let outsideTools: Set = ["curl", "ip", "janus", "podman", "docker", "kubectl"]
    /// Arguments starting with these name paths in the repository, which must exist.
    static let repoPrefixes = ["Pipelines/", "Benchmarks/", "Scripts/", "Tests/", "deploy/", "docs/", "Plugins/"]
    /// Programs beginning with these are the repository's own scripts.
    static let scriptPrefixes = ["Scripts/", "Benchmarks/", "Tests/", "deploy/"]
    static let sluiceNames: Set = ["sluice", ".build/release/sluice", ".build/debug/sluice"]

    // MARK: - The documents

    static var documents: [String] {
        let docs = Repository.root.appendingPathComponent("docs")
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: docs.path)) ?? [])
            .filter { $0.hasSuffix(".md") }.sorted()
        return ["README.md"] + names.map { "docs/\($0)" }
    }

    static func read(_ document: String) throws -> String {
        try String(contentsOf: Repository.root.appendingPathComponent(document), encoding: .utf8)
    }

    /// The fenced blocks of a document, in order. A fence may be indented (inside a list
    /// item); its body is read with that indentation removed.
    static func blocks(of document: String) throws -> [Block] {
        let lines = try read(document).components(separatedBy: "\n")
        var result: [Block] = []
        var open: Block?
        var indent = 0
        for (i, raw) in lines.enumerated() {
            let trimmed = raw.trimmingCharacters(in: .whitespaces)
            if var block = open {
                if trimmed == "```" {
                    result.append(block)
                    open = nil
                } else {
                    var line = Substring(raw)
                    var n = 0
                    while n < indent, line.first == " " { line = line.dropFirst(); n += 1 }
                    block.lines.append(String(line))
                    open = block
                }
            } else if trimmed.hasPrefix("```") {
                indent = raw.prefix { $0 == " " }.count
                let info = trimmed.dropFirst(3).split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
                open = Block(document: document, line: i + 1, info: info, lines: [])
            }
        }
        if let open { result.append(Block(document: open.document, line: open.line, info: "unclosed fence", lines: [])) }
        return result
    }

    static func allBlocks() throws -> [Block] {
        try documents.flatMap { try blocks(of: $0) }
    }

    // MARK: - README and links

    func testTheREADMEIsShortAndItsDocsLinksResolve() throws {
        let readme = try Self.read("README.md")
        let count = readme.split(separator: "\n", omittingEmptySubsequences: false).count
        XCTAssertLessThanOrEqual(count, 220, "README.md has \(count) lines; keep it at most ~200 and move detail into docs/")
        let links = Self.links(in: readme)
        XCTAssertTrue(links.contains { $0.target.hasPrefix("docs/") }, "README.md links nothing in docs/")
        for document in Self.documents {
            let text = try Self.read(document)
            let base = document.lastIndex(of: "/").map { String(document[..<$0]) } ?? ""
            for link in Self.links(in: text) {
                let target = link.target
                if target.hasPrefix("http://") || target.hasPrefix("https://") || target.hasPrefix("mailto:") || target.hasPrefix("#") { continue }
                let path = String(target.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)[0])
                let resolved = Repository.root.appendingPathComponent(base.isEmpty ? path : "\(base)/\(path)").standardizedFileURL
                XCTAssertTrue(
                    FileManager.default.fileExists(atPath: resolved.path),
                    "\(document):\(link.line): the link '\(target)' points to \(resolved.path), which does not exist")
            }
        }
    }

    static func links(in text: String) -> [(line: Int, target: String)] {
        let regex = try! NSRegularExpression(pattern: #"\]\(([^)\s]+)\)"#)
        var result: [(line: Int, target: String)] = []
        var inFence = false
        for (i, line) in text.components(separatedBy: "\n").enumerated() {
            if line.trimmingCharacters(in: .whitespaces).hasPrefix("```") { inFence.toggle(); continue }
            if inFence { continue }
            let ns = line as NSString
            for m in regex.matches(in: line, range: NSRange(location: 0, length: ns.length)) {
                result.append((line: i + 1, target: ns.substring(with: m.range(at: 1))))
            }
        }
        return result
    }

    // MARK: - Kinds of blocks

    func testEveryBlockHasAKnownKind() throws {
        let blocks = try Self.allBlocks()
        XCTAssertGreaterThan(blocks.count, 20, "found only \(blocks.count) fenced blocks in README.md and docs/")
        for (i, block) in blocks.enumerated() {
            XCTAssertTrue(
                Self.knownInfo.contains(block.info),
                "\(block.place): a fenced block with info string '\(block.info)'; use one of \(Self.knownInfo.sorted()) (docs/README.md)")
            if block.info == "yaml error" {
                let next: Block? = i + 1 < blocks.count && blocks[i + 1].document == block.document ? blocks[i + 1] : nil
                XCTAssertEqual(
                    next?.info, "text", "\(block.place): a `yaml error` block must be followed by a `text` block with the expected FILE:LINE:COL: message")
            }
        }
    }

    // MARK: - Pipeline snippets

    static let minimalSend = """
        send:
          video:
            capture: { kind: test, width: 320, height: 240, fps: 30 }
            encode: { codec: vp8 }

        """
    static let minimalReceive = """
        receive:
          video: { sink: stats }

        """

    /// The files a yaml block is validated as: itself when it is a whole file; a `transport:`
    /// fragment with a minimal send section, then with a minimal receive section; nothing
    /// (a failure) otherwise.
    static func candidates(for block: Block) -> [String] {
        let keys = Set(
            block.lines.compactMap { line -> String? in
                guard let first = line.first, first.isLetter, let colon = line.firstIndex(of: ":") else { return nil }
                return String(line[..<colon])
            })
        if keys.contains("send") || keys.contains("receive") { return [block.text] }
        if keys.contains("transport") { return [block.text + minimalSend, block.text + minimalReceive] }
        return []
    }

    /// `${NAME}` without a default gets a placeholder value, so the file validates.
    static func environment(for text: String) -> [String: String] {
        let regex = try! NSRegularExpression(pattern: #"\$\{([A-Za-z_][A-Za-z0-9_]*)\}"#)
        let ns = text as NSString
        var env: [String: String] = [:]
        for m in regex.matches(in: text, range: NSRange(location: 0, length: ns.length)) {
            env[ns.substring(with: m.range(at: 1))] = "docs-test"
        }
        return env
    }

    /// Validates `text` as a pipeline file written next to the docs (so relative paths resolve
    /// as from Pipelines/). Returns the exit status and everything printed.
    static func validate(_ text: String) throws -> (status: Int32, output: String) {
        let file = Repository.root.appendingPathComponent("docs/.snippet-\(UUID().uuidString).yaml")
        try text.write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        let r = try CLI.run(["validate", file.path], env: environment(for: text), timeout: 60, isolated: false)
        return (r.status, r.stdout + r.stderr)
    }

    func testPipelineSnippetsValidate() throws {
        let blocks = try Self.allBlocks()
        var checked = 0
        for (i, block) in blocks.enumerated() where block.info == "yaml" || block.info == "yaml error" {
            let candidates = Self.candidates(for: block)
            guard !candidates.isEmpty else {
                XCTFail("\(block.place): a yaml block with none of transport:, send:, receive: at its top level; show a whole pipeline file (docs/README.md)")
                continue
            }
            checked += 1
            var outputs: [String] = []
            var passed = false
            for text in candidates {
                let r = try Self.validate(text)
                outputs.append(r.output)
                if r.status == 0 { passed = true; break }
            }
            if block.info == "yaml" {
                XCTAssertTrue(
                    passed,
                    "\(block.place): this pipeline snippet does not pass `sluice validate`:\n\(outputs.joined(separator: "\n--- with a minimal receive section instead:\n"))"
                )
            } else {
                XCTAssertFalse(passed, "\(block.place): this `yaml error` snippet passes `sluice validate`; it should fail")
                guard i + 1 < blocks.count, blocks[i + 1].info == "text" else { continue }
                let output = outputs.joined(separator: "\n")
                for expected in blocks[i + 1].lines where !expected.trimmingCharacters(in: .whitespaces).isEmpty {
                    let message = Self.fromLineAndColumn(expected)
                    XCTAssertTrue(
                        output.contains(message),
                        "\(block.place): expected '\(message)' (from \(blocks[i + 1].place)) in the validation output:\n\(output)")
                }
            }
        }
        XCTAssertGreaterThan(checked, 10, "only \(checked) pipeline snippets found")
    }

    /// `FILE:LINE:COL: message` → `:LINE:COL: message` (the file name differs).
    static func fromLineAndColumn(_ expected: String) -> String {
        let ns = expected as NSString
        let regex = try! NSRegularExpression(pattern: #":[0-9]+:[0-9]+: "#)
        guard let m = regex.firstMatch(in: expected, range: NSRange(location: 0, length: ns.length)) else { return expected }
        return ns.substring(from: m.range.location)
    }

    // MARK: - Shell commands

    /// One simple command of a block: its text (as sh would run it), the words after quote
    /// removal, whether it ran in the background, and where it is.
    struct Command {
        var text: String
        var words: [String]
        var background: Bool
        var place: String
        /// The words after leading NAME=value assignments.
        var program: [String] {
            Array(words.drop(while: { $0.range(of: #"^[A-Za-z_][A-Za-z0-9_]*="#, options: .regularExpression) != nil }))
        }
    }

    enum Verdict: Equatable {
        case run
        case validated
        case failure(String)
    }

    /// The commands of a `sh` or `console` block.
    static func commands(of block: Block) -> [Command] {
        var result: [Command] = []
        var index = 0
        while index < block.lines.count {
            var line = block.lines[index]
            let lineNumber = block.line + 1 + index
            index += 1
            if block.info == "console" {
                guard line.hasPrefix("$ ") else { continue }
                line = String(line.dropFirst(2))
            }
            var text = stripComment(line)
            while text.hasSuffix("\\"), index < block.lines.count {
                text = String(text.dropLast()) + " " + stripComment(block.lines[index])
                index += 1
            }
            for (segment, background) in split(text) {
                let words = self.words(segment)
                if words.isEmpty { continue }
                result.append(
                    Command(
                        text: segment.trimmingCharacters(in: .whitespaces), words: words, background: background,
                        place: "\(block.document):\(lineNumber)"))
            }
        }
        return result
    }

    /// The line without a `#` comment (a `#` at the start or after a blank, outside quotes).
    static func stripComment(_ line: String) -> String {
        var quote: Character?
        var previous: Character = " "
        var out = ""
        for c in line {
            if let q = quote {
                if c == q { quote = nil }
            } else if c == "'" || c == "\"" {
                quote = c
            } else if c == "#" && previous.isWhitespace {
                break
            }
            out.append(c)
            previous = c
        }
        return out.trimmingCharacters(in: .whitespaces)
    }

    /// Splits a line into simple commands at `;`, `&&`, `||` and `&` outside quotes; the flag
    /// says a command was sent to the background with `&`. A single `|` is left in place (in a
    /// synopsis it separates alternatives).
    static func split(_ line: String) -> [(String, Bool)] {
        var result: [(String, Bool)] = []
        var current = ""
        var quote: Character?
        let chars = Array(line)
        var i = 0
        while i < chars.count {
            let c = chars[i]
            let next: Character? = i + 1 < chars.count ? chars[i + 1] : nil
            if let q = quote {
                if c == q { quote = nil }
                current.append(c)
            } else if c == "'" || c == "\"" {
                quote = c
                current.append(c)
            } else if c == ";" {
                result.append((current, false)); current = ""
            } else if c == "&" && next == "&" || c == "|" && next == "|" {
                result.append((current, false)); current = ""; i += 1
            } else if c == "&" {
                result.append((current, true)); current = ""
            } else {
                current.append(c)
            }
            i += 1
        }
        result.append((current, false))
        return result.filter { !$0.0.trimmingCharacters(in: .whitespaces).isEmpty }
    }

    /// The words of a simple command, with quotes removed.
    static func words(_ text: String) -> [String] {
        var result: [String] = []
        var current = ""
        var inWord = false
        var quote: Character?
        var escaped = false
        for c in text {
            if escaped { current.append(c); escaped = false; continue }
            if let q = quote {
                if c == q { quote = nil } else if c == "\\" && q == "\"" { escaped = true } else { current.append(c) }
                continue
            }
            if c == "\\" { escaped = true; inWord = true; continue }
            if c == "'" || c == "\"" { quote = c; inWord = true; continue }
            if c.isWhitespace {
                if inWord { result.append(current); current = ""; inWord = false }
                continue
            }
            current.append(c); inWord = true
        }
        if inWord { result.append(current) }
        return result
    }

    /// Decides what the test does with a command, checking what validation means on the way.
    func verdict(_ command: Command) -> Verdict {
        let program = command.program
        guard let name = program.first else { return .failure("an empty command") }
        if Self.sluiceNames.contains(name) { return sluiceVerdict(Array(program.dropFirst()), background: command.background) }
        if name == "unshare" {
            // unshare -n sh -c 'SCRIPT': run when every command of SCRIPT would be run.
            guard program.count >= 5, program[1] == "-n", program[2] == "sh", program[3] == "-c" else {
                return .failure("only `unshare -n sh -c '…'` is understood")
            }
            var inner: [Verdict] = []
            for (segment, background) in Self.split(program[4]) {
                let words = Self.words(segment)
                if words == ["ip", "link", "set", "lo", "up"] { continue }
                inner.append(verdict(Command(text: segment, words: words, background: background, place: command.place)))
            }
            if let failure = inner.first(where: { if case .failure = $0 { return true } else { return false } }) { return failure }
            return inner.allSatisfy { $0 == .run } && !command.background ? .run : .validated
        }
        if Self.scriptPrefixes.contains(where: { name.hasPrefix($0) }) {
            let path = Repository.root.appendingPathComponent(name).path
            guard FileManager.default.isExecutableFile(atPath: path) else { return .failure("\(name) does not exist or is not executable") }
            return pathsExist(Array(program.dropFirst())) ?? .validated
        }
        if Self.outsideTools.contains(name) { return pathsExist(Array(program.dropFirst())) ?? .validated }
        return .failure("cannot classify the command '\(name)': add a rule in DocsSnippetTests and docs/README.md, or show it as `text`")
    }

    func sluiceVerdict(_ arguments: [String], background: Bool) -> Verdict {
        // Synopsis syntax: [ ] around options, `...`, `|` between alternatives.
        let args = arguments.map { $0.trimmingCharacters(in: CharacterSet(charactersIn: "[]")) }
            .filter { !$0.isEmpty && $0 != "..." && $0 != "…" && $0 != "|" }
        guard let sub = args.first else { return .failure("`sluice` without a subcommand") }
        if sub == "--help" || sub == "-h" || sub == "help" || sub == "--version" { return .run }
        guard Self.subcommands.contains(sub) else { return .failure("sluice has no subcommand '\(sub)' (it has \(Self.subcommands.sorted()))") }
        let help = Self.help(Self.commandPath(sub, next: args.dropFirst().first))
        for word in args.dropFirst() where word.hasPrefix("-") && word.range(of: #"^-[0-9]"#, options: .regularExpression) == nil {
            let option = String(word.split(separator: "=", maxSplits: 1)[0])
            let pattern = NSRegularExpression.escapedPattern(for: option) + "(?![A-Za-z0-9-])"
            if help.range(of: pattern, options: .regularExpression) == nil {
                return .failure("`sluice \(sub) --help` has no option \(option)")
            }
        }
        if let failure = pathsExist(Array(args.dropFirst())) { return failure }
        // A synopsis (brackets, `...`, `|`, a placeholder such as FILE) is a shape, not a command.
        let synopsis = arguments.contains {
            $0.contains("[") || $0.contains("]") || $0.hasSuffix("...") || $0.hasSuffix("…") || $0 == "|"
                || $0.range(of: #"^[A-Z][A-Z_]*(\.\.\.)?$"#, options: .regularExpression) != nil
        }
        if background || synopsis { return .validated }
        switch sub {
        case "validate", "inspect", "graph":
            return .run
        case "run", "measure":
            if let i = args.firstIndex(of: "--duration"), i + 1 < args.count, let seconds = Double(args[i + 1]), seconds <= 5 { return .run }
            return .validated
        default:
            return .validated
        }
    }

    /// A failure when an argument names a repository path that does not exist (globs must match).
    func pathsExist(_ arguments: [String]) -> Verdict? {
        for word in arguments where Self.repoPrefixes.contains(where: { word.hasPrefix($0) }) {
            let path = word.trimmingCharacters(in: CharacterSet(charactersIn: "[],"))
            if path.contains("*") {
                let url = Repository.root.appendingPathComponent(path)
                let pattern = url.lastPathComponent.split(separator: "*", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
                let names = (try? FileManager.default.contentsOfDirectory(atPath: url.deletingLastPathComponent().path)) ?? []
                if !names.contains(where: { $0.hasPrefix(pattern[0]) && $0.hasSuffix(pattern.count > 1 ? pattern[1] : "") }) {
                    return .failure("\(path) matches no file")
                }
            } else if !FileManager.default.fileExists(atPath: Repository.root.appendingPathComponent(path).path) {
                return .failure("\(path) does not exist")
            }
        }
        return nil
    }

    /// `sluice SUB --help` texts, each asked for once.
    final class HelpCache: @unchecked Sendable { // all state behind `lock`
        private let lock = NSLock()
        private var texts: [String: String] = [:]
        func text(_ sub: String, make: () -> String) -> String {
            lock.lock(); defer { lock.unlock() }
            if let cached = texts[sub] { return cached }
            let made = make()
            texts[sub] = made
            return made
        }
    }
    static let helpCache = HelpCache()

    /// The command whose options a line uses: `sub`, or, when `sub` has subcommands of its
    /// own (`sluice load`), the one `next` names or else its default (`load merge`, `load crowd`).
    static func commandPath(_ sub: String, next: String?) -> String {
        let nested = listedSubcommands(in: help(sub))
        if let next, nested.names.contains(next) { return "\(sub) \(next)" }
        return nested.defaultName.map { "\(sub) \($0)" } ?? sub
    }

    /// The subcommands a help text lists, and the one marked `(default)`.
    static func listedSubcommands(in text: String) -> (names: Set<String>, defaultName: String?) {
        var names: Set<String> = [], defaultName: String?, inList = false
        for line in text.components(separatedBy: "\n") {
            if line.hasPrefix("SUBCOMMANDS:") { inList = true; continue }
            guard inList, line.hasPrefix("  "), let name = line.split(separator: " ").first.map(String.init) else { continue }
            names.insert(name)
            if line.contains("(default)") { defaultName = name }
        }
        return (names, defaultName)
    }

    /// `sluice --help` for "", else `sluice SUB --help` (SUB may be `load merge`).
    static func help(_ sub: String) -> String {
        helpCache.text(sub) {
            let words = sub.split(separator: " ").map(String.init)
            let r = try? CLI.run(words + ["--help"], timeout: 30, isolated: false)
            return (r?.stdout ?? "") + (r?.stderr ?? "")
        }
    }

    /// The subcommands `sluice --help` lists.
    static var subcommands: Set<String> {
        var result: Set<String> = []
        var inList = false
        for line in help("").components(separatedBy: "\n") {
            if line.hasPrefix("SUBCOMMANDS:") { inList = true; continue }
            guard inList else { continue }
            if let m = line.range(of: #"^  ([a-z][a-z-]*)( |$)"#, options: .regularExpression) {
                result.insert(line[m].trimmingCharacters(in: .whitespaces))
            }
        }
        return result
    }

    /// Runs a command the way a reader would, in a network namespace with only loopback, from
    /// the repository's root, with `sluice` on PATH being the built binary.
    func runCommand(_ command: Command) throws -> CLIResult {
        let bin = FileManager.default.temporaryDirectory.appendingPathComponent("sluice-docs-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: bin, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: bin) }
        try FileManager.default.createSymbolicLink(at: bin.appendingPathComponent("sluice"), withDestinationURL: CLI.binary)
        let text = command.text
            .replacingOccurrences(of: ".build/release/sluice", with: "sluice")
            .replacingOccurrences(of: ".build/debug/sluice", with: "sluice")
        let script = "ip link set lo up\n" + text
        let path = bin.path + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")
        return try CLI.execute(
            inNamespace: script,
            env: ["PATH": path], timeout: 90, reportPath: nil)
    }

    func testShellCommandsRunOrValidate() throws {
        XCTAssertFalse(Self.subcommands.isEmpty, "`sluice --help` lists no subcommands:\n\(Self.help(""))")
        var ran: [String] = [], validated: [String] = []
        for block in try Self.allBlocks() where block.info == "sh" || block.info == "console" {
            let commands = Self.commands(of: block)
            XCTAssertFalse(commands.isEmpty, "\(block.place): a `\(block.info)` block without a command")
            for command in commands {
                switch verdict(command) {
                case .failure(let why):
                    XCTFail("\(command.place) (block at \(block.place)): \(command.text)\n  \(why)")
                case .validated:
                    validated.append("\(command.place): \(command.text)")
                case .run:
                    let r = try runCommand(command)
                    ran.append("\(command.place): \(command.text)")
                    XCTAssertEqual(
                        r.status, 0,
                        "\(command.place) (block at \(block.place)): `\(command.text)` exited \(r.status):\n\(r.stdout.suffix(3000))\n\(r.stderr.suffix(3000))")
                }
            }
        }
        print("docs commands run (\(ran.count)):\n  " + ran.joined(separator: "\n  "))
        print("docs commands validated (\(validated.count)):\n  " + validated.joined(separator: "\n  "))
        XCTAssertGreaterThan(ran.count, 3, "hardly any documented command was run")
    }
}
