import PageModel

print("bench-codec")
