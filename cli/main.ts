console.log("pm: under construction")
