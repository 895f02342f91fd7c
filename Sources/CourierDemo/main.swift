import Courier
print("Courier demo: under construction")
