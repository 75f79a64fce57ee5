import HTTPCore
import PageModel

/// BFFServer: the application on top of HTTPCore and PageModel.
public enum BFFServer {}
