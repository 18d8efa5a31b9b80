// Settings of our own for the diagrams, added to the ones Material passes to mermaid.initialize().
// Material calls it once, just before it draws the first diagram of a page; this file loads after
// mermaid.min.js and before that call.
(function () {
  if (typeof mermaid === "undefined") return;

  // Draw every diagram at its natural size, with 16 px labels, instead of shrinking it to the width of
  // the text column: one wider than the column (or than a phone) scrolls sideways (.mermaid in
  // extra.css) and stays readable.
  const natural = { useMaxWidth: false };

  // Sequence diagrams: less empty space, so that four or five participants fit the column. Mermaid's
  // defaults leave 50 px on each side of the diagram, 50 px between two participants' boxes, and make
  // every box at least 150 px wide; a box still grows to fit its name, and two lifelines still move
  // apart to fit the messages between them.
  const compact = { diagramMarginX: 16, actorMargin: 20, width: 80 };

  const initialize = mermaid.initialize.bind(mermaid);
  mermaid.initialize = function (config = {}) {
    return initialize({
      ...config,
      flowchart: { ...config.flowchart, ...natural },
      sequence: { ...config.sequence, ...natural, ...compact },
    });
  };
})();
