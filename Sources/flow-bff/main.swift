import BFFServer
import PageModel
import PageStore

print("flow-bff")
