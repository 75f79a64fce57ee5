/// What this binary is: its release version and the commit it was built from (compiled in by the EmbedFiles build
/// plugin; `unknown` when built outside a git checkout). `flow-bff --version` and `flow_bff_build_info` say it.
public enum BuildInfo {
    public static let version = "0.1.0"
    public static let commit = EmbeddedFiles.buildCommit

    /// `flow_bff_build_info{version,commit} 1`.
    static var family: MetricFamily {
        MetricFamily(
            "flow_bff_build_info", .gauge, help: "The running build: release version and commit (always 1).",
            labels: ["version", "commit"], samples: [.init(labels: [version, commit], value: .count(1))])
    }
}
