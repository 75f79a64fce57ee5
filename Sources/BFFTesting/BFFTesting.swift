import BFFServer

/// BFFTesting: the test kit.
public enum BFFTesting {}
