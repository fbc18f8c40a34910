"""The charts of tools/plot.py (also used by compare.py and lab12_plot.py), one
module a job: inputs.py reads and checks mmlab's JSON and lab 10's CSV;
canvas.py draws SVG (sizes, colours, titles, axes, label placement);
progression.py, sizes.py and roofline.py draw one chart each; output.py
converts and writes the files. Python standard library only."""
