import Testing

@testable import PageModel

/// `Compatibility` keeps what is declared in one box: its fields still read, write, compare and hash as values.
@Suite struct CompatibilityStorageTests {
    @Test func fieldsWrittenOneByOneEqualTheInitializer() throws {
        let version = MinimumAppVersion.all(try #require(AppVersion("3.2.0")))
        let requirement = Requirement(name: "haptics")
        var built = Compatibility()
        #expect(built.isEmpty)
        built.minAppVersion = version
        built.requires.append(requirement)
        built.fallback = .category("list_row")
        let direct = Compatibility(minAppVersion: version, requires: [requirement], fallback: .category("list_row"))
        #expect(built == direct)
        #expect(built.hashValue == direct.hashValue)
        #expect(!built.isEmpty)
        #expect(
            built.minAppVersion == version && built.requires == [requirement] && built.fallback == .category("list_row")
        )
    }

    @Test func aCopyIsAValue() {
        var original = Compatibility(requires: [Requirement(name: "haptics")])
        let copy = original
        original.fallback = .drop
        #expect(copy.fallback == nil)
        #expect(copy != original)
        original.fallback = nil
        original.requires = []
        #expect(original.isEmpty)
        #expect(original == Compatibility())
        #expect(original.hashValue == Compatibility().hashValue)
    }
}
