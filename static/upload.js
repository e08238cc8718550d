// Card upload: lets the organizer pick a card file on their device and puts its text in the
// form's text box. Without this script the text box alone works.
(function () {
  "use strict";
  var pick = document.querySelector(".file-pick");
  var input = document.getElementById("card-file");
  var source = document.getElementById("card-source");
  if (!pick || !input || !source || !window.FileReader) return;
  pick.hidden = false;
  input.addEventListener("change", function () {
    var file = input.files && input.files[0];
    if (!file) return;
    var reader = new FileReader();
    reader.onload = function () { source.value = String(reader.result); };
    reader.readAsText(file);
  });
})();
